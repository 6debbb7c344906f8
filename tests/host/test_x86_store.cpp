// SPDX-License-Identifier: GPL-2.0
// The decoder of trapped UAR doorbell stores (core_cpp/lib/x86_store.cpp):
// every form of "mov r64, m64" and of the SSE/AVX stores an application
// can be compiled to, checked against the forms Debian's libmlx5 44 and
// UCX contain and the assembler's encodings (bytes and meaning as objdump
// prints them) and against an encoder written here from the Intel SDM's
// REX/VEX and ModRM/SIB tables; and the forms it must refuse.
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

void expect_decodes(const form &f, const char *what, uint32_t width = 8, uint32_t vec = 0)
{
	regs_t g;
	scx_x86_store d{};
	ASSERT_TRUE(scx_x86_decode_store(f.bytes.data(), f.bytes.size(), g.r, rip, &d)) << what;
	EXPECT_EQ(d.ea, expected_ea(f, g)) << what;
	EXPECT_EQ(d.len, f.bytes.size()) << what;
	EXPECT_EQ(d.src, uint32_t(f.src)) << what;
	EXPECT_EQ(d.width, width) << what;
	EXPECT_EQ(d.vec, vec) << what;
	// With fewer bytes than the instruction it is refused, never misread.
	for (size_t n = 0; n < f.bytes.size(); n++)
		EXPECT_FALSE(scx_x86_decode_store(f.bytes.data(), n, g.r, rip, &d)) << what << " cut to " << n;
	// Bytes after it do not matter.
	std::vector<uint8_t> longer = f.bytes;
	longer.insert(longer.end(), {0x90, 0x90, 0xcc, 0x48, 0x89});
	ASSERT_TRUE(scx_x86_decode_store(longer.data(), longer.size(), g.r, rip, &d)) << what;
	EXPECT_EQ(d.len, f.bytes.size()) << what;
}

// The register extensions an operand needs: REX.R, REX.X, REX.B as bits.
int ext_bits(int src, int base, int index)
{
	return (src & 8 ? 4 : 0) | (index != none && index & 8 ? 2 : 0) | (base != none && base & 8 ? 1 : 0);
}

// ModRM (and SIB, disp) from the SDM, appended to b. base none: SIB with
// base 101 and mod 00 (disp32 only); index none: 100.
void encode_operand(std::vector<uint8_t> &b, int src, int base, int index, int scale, int disp_size, int32_t disp)
{
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
}

// REX.W + 89 /r.
std::vector<uint8_t> encode(int src, int base, int index, int scale, int disp_size, int32_t disp)
{
	std::vector<uint8_t> b = {uint8_t(0x48 | ext_bits(src, base, index)), 0x89};
	encode_operand(b, src, base, index, scale, disp_size, disp);
	return b;
}

// The vector store forms: legacy SSE (66 0F 7F, movdqa), VEX2 (when no X/B
// extension is needed) and VEX3 (vmovdqu, L selects 16 or 32 bytes).
enum class vform { sse, vex2, vex3 };
std::vector<uint8_t> encode_vec(vform k, bool l256, int src, int base, int index, int scale, int disp_size,
				int32_t disp)
{
	int ext = ext_bits(src, base, index);
	std::vector<uint8_t> b;
	if (k == vform::sse) {
		b = {0x66};
		if (ext)
			b.push_back(uint8_t(0x40 | ext));
		b.insert(b.end(), {0x0f, 0x7f});
	} else if (k == vform::vex2) {
		// R inverted, vvvv 1111, L, pp 10 (F3)
		b = {0xc5, uint8_t((ext & 4 ? 0 : 0x80) | 0x78 | (l256 ? 4 : 0) | 2), 0x7f};
	} else {
		b = {0xc4, uint8_t((~ext & 7) << 5 | 1), uint8_t(0x78 | (l256 ? 4 : 0) | 2), 0x7f};
	}
	encode_operand(b, src, base, index, scale, disp_size, disp);
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

// f(src, base, index, scale, disp_size, disp, expected disp) for every
// source register, base, index (rsp is no index; r12 is one), scale and
// displacement size the encoding allows; stops at the first failure.
template <typename F> int for_every_operand(F &&f)
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
						int64_t want = base == none || size ? int64_t(disp) : 0;
						f(src, base, index, scale, size, disp, want);
						if (::testing::Test::HasFailure())
							return checked;
						checked++;
					}
				}
			}
	return checked;
}

TEST(X86Store, EveryRegisterBaseIndexScaleAndDisplacement)
{
	int checked = for_every_operand([](int src, int base, int index, int scale, int size, int32_t disp, int64_t want) {
		form f{encode(src, base, index, scale, size, disp), src, base, index, scale, want, false};
		expect_decodes(f, "encoded form");
	});
	EXPECT_GT(checked, 10000);
}

// The vector stores compilers and UCX emit (bytes as objdump prints them).
TEST(X86Store, SseAndAvxForms)
{
	struct vf {
		form f;
		uint32_t width;
	};
	const vf forms[] = {
		{{{0xc5, 0xfe, 0x7f, 0x07}, 0, rdi, none, 0, 0, false}, 32},                   // UCX: vmovdqu %ymm0,(%rdi)
		{{{0xc5, 0xfd, 0x7f, 0x4f, 0x20}, 1, rdi, none, 0, 0x20, false}, 32},          // vmovdqa %ymm1,0x20(%rdi)
		{{{0xc4, 0x41, 0x7e, 0x7f, 0x3c, 0x24}, 15, r12, none, 0, 0, false}, 32},      // vmovdqu %ymm15,(%r12)
		{{{0xc4, 0x21, 0x78, 0x11, 0x4c, 0xa8, 0xf8}, 9, rax, r13, 2, -8, false}, 16}, // vmovups %xmm9,-0x8(%rax,%r13,4)
		{{{0xc5, 0xfd, 0xe7, 0x1d, 0x10, 0x00, 0x00, 0x00}, 3, none, none, 0, 0x10, true}, 32}, // vmovntdq %ymm3,0x10(%rip)
		{{{0xc4, 0xc1, 0x79, 0x29, 0x20}, 4, r8, none, 0, 0, false}, 16},              // vmovapd %xmm4,(%r8)
		{{{0x66, 0x0f, 0x7f, 0x00}, 0, rax, none, 0, 0, false}, 16},                   // movdqa %xmm0,(%rax)
		{{{0x0f, 0x11, 0x4f, 0x10}, 1, rdi, none, 0, 0x10, false}, 16},                // movups %xmm1,0x10(%rdi)
		{{{0x66, 0x45, 0x0f, 0xe7, 0x01}, 8, r9, none, 0, 0, false}, 16},              // movntdq %xmm8,(%r9)
		{{{0xf3, 0x0f, 0x7f, 0x14, 0xca}, 2, rdx, rcx, 3, 0, false}, 16},              // movdqu %xmm2,(%rdx,%rcx,8)
		{{{0x0f, 0x29, 0xbc, 0x24, 0x00, 0x01, 0x00, 0x00}, 7, rsp, none, 0, 0x100, false}, 16}, // movaps %xmm7,0x100(%rsp)
		{{{0x0f, 0x2b, 0x1b}, 3, rbx, none, 0, 0, false}, 16},                         // movntps %xmm3,(%rbx)
	};
	for (const vf &v : forms)
		expect_decodes(v.f, "vector form", v.width, 1);
}

// Every operand under each vector encoding, 16 and 32 bytes.
TEST(X86Store, EveryOperandOfTheVectorEncodings)
{
	for (vform k : {vform::sse, vform::vex2, vform::vex3})
		for (bool l256 : {false, true}) {
			if (k == vform::sse && l256)
				continue;
			for_every_operand([&](int src, int base, int index, int scale, int size, int32_t disp, int64_t want) {
				// VEX2 has no X or B: those operands need VEX3.
				if (k == vform::vex2 && ext_bits(0, base, index))
					return;
				form f{encode_vec(k, l256, src, base, index, scale, size, disp), src, base, index, scale,
				       want, false};
				expect_decodes(f, "encoded vector form", l256 ? 32 : 16, 1);
			});
		}
}

// What is not one of the decoded stores to memory is refused.
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
		{0x48, 0x0f, 0xc3, 0x02},                   // movnti %rax,(%rdx)
		{0xf3, 0x0f, 0x11, 0x00},                   // movss %xmm0,(%rax): 4 bytes
		{0xf2, 0x0f, 0x11, 0x00},                   // movsd %xmm0,(%rax): 8 bytes of an xmm
		{0x66, 0x0f, 0xd6, 0x00},                   // movq %xmm0,(%rax)
		{0x66, 0x48, 0x0f, 0x7f, 0x00},             // REX.W on movdqa
		{0x64, 0x66, 0x0f, 0x7f, 0x00},             // fs: before movdqa
		{0x66, 0xf3, 0x0f, 0x7f, 0x00},             // two mandatory prefixes
		{0x67, 0x0f, 0x11, 0x00},                   // address size before movups
		{0x0f, 0x7f, 0x00},                         // movq %mm0,(%rax): MMX
		{0xf3, 0x0f, 0x6f, 0x00},                   // movdqu (%rax),%xmm0: a load
		{0x66, 0x0f, 0x7f, 0xc1},                   // movdqa %xmm0,%xmm1
		{0xc5, 0xfe, 0x6f, 0x07},                   // vmovdqu (%rdi),%ymm0: a load
		{0xc5, 0xfe, 0x7f, 0xc8},                   // vmovdqu %ymm1,%ymm0
		{0xc5, 0xf6, 0x7f, 0x07},                   // VEX.vvvv in use
		{0xc4, 0xe1, 0xfe, 0x7f, 0x07},             // VEX.W1
		{0xc4, 0xe2, 0x7e, 0x7f, 0x07},             // map 0F38
		{0xc5, 0xff, 0x7f, 0x07},                   // pp F2
		{0x62, 0xf1, 0x7c, 0x48, 0x11, 0x00},       // vmovups %zmm0,(%rax): EVEX
	};
	for (const auto &b : refused)
		EXPECT_FALSE(scx_x86_decode_store(b.data(), b.size(), g.r, rip, &d))
			<< "first bytes " << std::hex << int(b[0]) << " " << int(b[1]);
}
