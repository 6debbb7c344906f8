// SPDX-License-Identifier: GPL-2.0
// The decoder of trapped UAR doorbell stores (core_cpp/lib/x86_store.cpp):
// every form of "mov r64, m64" an application can be compiled to, checked
// against the forms Debian's libmlx5 44 contains (bytes and meaning as
// objdump prints them) and against an encoder written here from the Intel
// SDM's ModRM/SIB tables; and the forms it must refuse.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "softcx/x86_store.h"

namespace {

// Distinct register values, so a wrong register shows in the address.
struct regs_t {
	uint64_t r[16];
	regs_t()
	{
		for (int i = 0; i < 16; i++)
			r[i] = 0x100000000ull * (i + 1) + 0x1000 * i;
	}
};

constexpr uint64_t rip = 0x7f0012345000ull;
enum : int { rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8, r9, r10, r11, r12, r13, r14, r15 };
constexpr int none = -1;

struct form {
	std::vector<uint8_t> bytes;
	int src, base, index, scale;
	int64_t disp;
	bool rip_rel;
};

uint64_t expected_ea(const form &f, const regs_t &g)
{
	if (f.rip_rel)
		return rip + f.bytes.size() + uint64_t(f.disp);
	uint64_t ea = uint64_t(f.disp);
	if (f.base != none)
		ea += g.r[f.base];
	if (f.index != none)
		ea += g.r[f.index] << f.scale;
	return ea;
}

void expect_decodes(const form &f, const char *what)
{
	regs_t g;
	scx_x86_store d{};
	ASSERT_TRUE(scx_x86_decode_store64(f.bytes.data(), f.bytes.size(), g.r, rip, &d)) << what;
	EXPECT_EQ(d.ea, expected_ea(f, g)) << what;
	EXPECT_EQ(d.len, f.bytes.size()) << what;
	EXPECT_EQ(d.src, uint32_t(f.src)) << what;
	// With fewer bytes than the instruction it is refused, never misread.
	for (size_t n = 0; n < f.bytes.size(); n++)
		EXPECT_FALSE(scx_x86_decode_store64(f.bytes.data(), n, g.r, rip, &d)) << what << " cut to " << n;
	// Bytes after it do not matter.
	std::vector<uint8_t> longer = f.bytes;
	longer.insert(longer.end(), {0x90, 0x90, 0xcc, 0x48, 0x89});
	ASSERT_TRUE(scx_x86_decode_store64(longer.data(), longer.size(), g.r, rip, &d)) << what;
	EXPECT_EQ(d.len, f.bytes.size()) << what;
}

// The encoder, from the SDM: REX.W + 89 /r with ModRM (and SIB, disp).
// base none: SIB with base 101 and mod 00 (disp32 only); index none: 100.
std::vector<uint8_t> encode(int src, int base, int index, int scale, int disp_size, int32_t disp)
{
	uint8_t rex = 0x48 | (src & 8 ? 4 : 0) | (index != none && index & 8 ? 2 : 0) |
		      (base != none && base & 8 ? 1 : 0);
	std::vector<uint8_t> b = {rex, 0x89};
	int mod = base == none ? 0 : disp_size == 0 ? 0 : disp_size == 1 ? 1 : 2;
	bool sib = base == none || index != none || (base & 7) == 4;
	int rm = sib ? 4 : (base & 7);
	b.push_back(uint8_t(mod << 6 | (src & 7) << 3 | rm));
	if (sib)
		b.push_back(uint8_t(scale << 6 | (index == none ? 4 : index & 7) << 3 | (base == none ? 5 : base & 7)));
	if (base == none || disp_size == 4)
		for (int i = 0; i < 4; i++)
			b.push_back(uint8_t(uint32_t(disp) >> (8 * i)));
	else if (disp_size == 1)
		b.push_back(uint8_t(int8_t(disp)));
	return b;
}

} // namespace

// Every store form with its bytes from Debian's libmlx5 44 (objdump -d),
// the doorbell's and the rest: base, base + disp8/32, rsp/r12 bases (SIB).
TEST(X86Store, FormsInDebiansLibmlx5)
{
	const form forms[] = {
		{{0x48, 0x89, 0x10}, rdx, rax, none, 0, 0, false},                          // mov %rdx,(%rax)
		{{0x48, 0x89, 0x02}, rax, rdx, none, 0, 0, false},                          // mov %rax,(%rdx)
		{{0x48, 0x89, 0x06}, rax, rsi, none, 0, 0, false},                          // mov %rax,(%rsi)
		{{0x49, 0x89, 0x3e}, rdi, r14, none, 0, 0, false},                          // mov %rdi,(%r14)
		{{0x49, 0x89, 0x2c, 0x24}, rbp, r12, none, 0, 0, false},                    // mov %rbp,(%r12)
		{{0x48, 0x89, 0x14, 0x24}, rdx, rsp, none, 0, 0, false},                    // mov %rdx,(%rsp)
		{{0x4c, 0x89, 0x04, 0x24}, r8, rsp, none, 0, 0, false},                     // mov %r8,(%rsp)
		{{0x48, 0x89, 0x5d, 0x08}, rbx, rbp, none, 0, 8, false},                    // mov %rbx,0x8(%rbp)
		{{0x49, 0x89, 0x56, 0x18}, rdx, r14, none, 0, 0x18, false},                 // mov %rdx,0x18(%r14)
		{{0x4c, 0x89, 0x73, 0x18}, r14, rbx, none, 0, 0x18, false},                 // mov %r14,0x18(%rbx)
		{{0x48, 0x89, 0x54, 0x24, 0x30}, rdx, rsp, none, 0, 0x30, false},           // mov %rdx,0x30(%rsp)
		{{0x4c, 0x89, 0x4c, 0x24, 0x48}, r9, rsp, none, 0, 0x48, false},            // mov %r9,0x48(%rsp)
		{{0x49, 0x89, 0x5c, 0x24, 0x08}, rbx, r12, none, 0, 8, false},              // mov %rbx,0x8(%r12)
		{{0x48, 0x89, 0x81, 0xf0, 0x01, 0x00, 0x00}, rax, rcx, none, 0, 0x1f0, false}, // mov %rax,0x1f0(%rcx)
		{{0x4c, 0x89, 0xb3, 0x00, 0x02, 0x00, 0x00}, r14, rbx, none, 0, 0x200, false}, // mov %r14,0x200(%rbx)
		{{0x48, 0x89, 0x84, 0x24, 0x88, 0x00, 0x00, 0x00}, rax, rsp, none, 0, 0x88, false}, // 0x88(%rsp)
		{{0x49, 0x89, 0x84, 0x24, 0x70, 0x14, 0x04, 0x00}, rax, r12, none, 0, 0x41470, false}, // 0x41470(%r12)
	};
	for (const form &f : forms)
		expect_decodes(f, "libmlx5 form");
}

// The forms compilers emit elsewhere: indexed, scaled, negative
// displacements, RIP-relative, absolute (no base).
TEST(X86Store, IndexScaleRipAndAbsoluteForms)
{
	const form forms[] = {
		{{0x48, 0x89, 0x04, 0x0a}, rax, rdx, rcx, 0, 0, false},                    // mov %rax,(%rdx,%rcx,1)
		{{0x4a, 0x89, 0x44, 0xe0, 0xf8}, rax, rax, r12, 3, -8, false},             // mov %rax,-0x8(%rax,%r12,8)
		{{0x4b, 0x89, 0x0c, 0x6e}, rcx, r14, r13, 1, 0, false},                    // mov %rcx,(%r14,%r13,2)
		{{0x4b, 0x89, 0x4c, 0x25, 0x00}, rcx, r13, r12, 0, 0, false},              // mov %rcx,0x0(%r13,%r12,1)
		{{0x48, 0x89, 0x05, 0x10, 0x00, 0x00, 0x00}, rax, none, none, 0, 0x10, true}, // mov %rax,0x10(%rip)
		{{0x4c, 0x89, 0x3d, 0xf0, 0xff, 0xff, 0xff}, r15, none, none, 0, -0x10, true}, // mov %r15,-0x10(%rip)
		{{0x48, 0x89, 0x04, 0x25, 0x00, 0x10, 0x00, 0x00}, rax, none, none, 0, 0x1000, false}, // mov %rax,0x1000
		{{0x48, 0x89, 0x04, 0xcd, 0x00, 0x10, 0x00, 0x00}, rax, none, rcx, 3, 0x1000, false}, // 0x1000(,%rcx,8)
	};
	for (const form &f : forms)
		expect_decodes(f, "indexed/rip/absolute form");
}

// Every source register, base, index (rsp is no index; r12 is one), scale
// and displacement size the encoding allows.
TEST(X86Store, EveryRegisterBaseIndexScaleAndDisplacement)
{
	int checked = 0;
	for (int src = 0; src < 16; src++)
		for (int base = none; base < 16; base++)
			for (int index = none; index < 16; index++) {
				if (index == rsp)
					continue;
				for (int scale = 0; scale < 4; scale++) {
					if (index == none && scale)
						continue;
					for (int ds : {0, 1, 4}) {
						// rbp/r13 as a base have no mod-00 form: disp8 0.
						int size = base != none && (base & 7) == 5 && ds == 0 ? 1 : ds;
						int32_t disp = size == 0 ? 0 : size == 1 ? -0x41 : 0x12345678;
						form f{encode(src, base, index, scale, size, disp), src, base, index, scale,
						       base == none ? int64_t(disp) : size ? int64_t(disp) : 0, false};
						if (base == none)
							f.disp = disp;
						expect_decodes(f, "encoded form");
						if (::testing::Test::HasFailure())
							return;
						checked++;
					}
				}
			}
	EXPECT_GT(checked, 10000);
}

// What is not a 64-bit store to memory is refused.
TEST(X86Store, OtherInstructionsAreRefused)
{
	regs_t g;
	scx_x86_store d{};
	const std::vector<std::vector<uint8_t>> refused = {
		{0x48, 0x89, 0xc2},                         // mov %rax,%rdx: register destination
		{0x89, 0x02},                               // mov %eax,(%rdx): 32-bit, no REX
		{0x40, 0x89, 0x02},                         // REX without W: 32-bit
		{0x44, 0x89, 0x2b},                         // mov %r13d,(%rbx)
		{0x66, 0x48, 0x89, 0x02},                   // operand-size prefix before REX
		{0x67, 0x48, 0x89, 0x02},                   // address-size prefix: 32-bit address
		{0x64, 0x48, 0x89, 0x02},                   // fs: segment override
		{0x65, 0x48, 0x89, 0x02},                   // gs: segment override
		{0xf0, 0x48, 0x89, 0x02},                   // lock prefix
		{0x48, 0x88, 0x02},                         // byte store
		{0x48, 0x8b, 0x02},                         // mov (%rdx),%rax: a load
		{0x48, 0xc7, 0x02, 0x01, 0x00, 0x00, 0x00}, // movq $1,(%rdx): immediate
		{0x66, 0x48, 0x0f, 0x7e, 0x02},             // movq %xmm0,(%rdx)
		{0x48, 0x87, 0x02},                         // xchg %rax,(%rdx)
		{0x48, 0xab},                               // stos
	};
	for (const auto &b : refused)
		EXPECT_FALSE(scx_x86_decode_store64(b.data(), b.size(), g.r, rip, &d))
			<< "first bytes " << std::hex << int(b[0]) << " " << int(b[1]);
}
