// SPDX-License-Identifier: GPL-2.0
#include "softcx/selfcheck.h"

#include "lib/atomic.h"
#include "lib/endian.h"
#include "lib/new.h"
#include "lib/sync.h"

namespace {

using namespace scx;

struct shape {
	virtual ~shape() = default;
	virtual int area() const = 0;
};

struct rect final : shape {
	rect(int w, int h) : w_(w), h_(h) {}
	int area() const override { return w_ * h_; }
	int w_, h_;
};

struct square final : shape {
	explicit square(int s) : s_(s) {}
	int area() const override { return s_ * s_; }
	int s_;
};

struct work_probe {
	completion done;
	scx_work *work = nullptr;
};

void work_probe_fire(void *arg) { static_cast<work_probe *>(arg)->done.complete(); }

} // namespace

extern "C" {

uint32_t scx_check_be32(uint32_t v, uint8_t out[4])
{
	be32 f;
	f.set(v);
	copy_bytes(out, &f, sizeof(f));
	return load_be<u32>(out);
}

uint64_t scx_check_be64(uint64_t v, uint8_t out[8])
{
	store_be<u64>(out, v);
	be64 f;
	copy_bytes(&f, out, sizeof(f));
	return f.get();
}

int scx_check_alloc(unsigned int count, unsigned int size)
{
	u8 **blocks = new u8 *[count];
	if (!blocks)
		return -int(errc::nomem);
	unsigned made = 0;
	int ret = 0;
	for (; made < count; made++) {
		blocks[made] = new u8[size];
		if (!blocks[made]) {
			ret = -int(errc::nomem);
			break;
		}
		for (unsigned j = 0; j < size; j++)
			blocks[made][j] = u8(made * 31 + j);
	}
	for (unsigned i = 0; i < made && !ret; i++)
		for (unsigned j = 0; j < size; j++)
			if (blocks[i][j] != u8(i * 31 + j)) {
				ret = -int(errc::io);
				break;
			}
	for (unsigned i = 0; i < made; i++)
		delete[] blocks[i];
	delete[] blocks;
	return ret;
}

int scx_check_virtual(int kind, int a, int b)
{
	shape *s = kind == 0 ? static_cast<shape *>(new rect(a, b)) : new square(a);
	if (!s)
		return -int(errc::nomem);
	int area = s->area();
	delete s;
	return area;
}

void scx_check_atomic_add(struct scx_atomic_probe *p, unsigned int n)
{
	auto *a = reinterpret_cast<atomic<u64> *>(&p->counter);
	for (unsigned i = 0; i < n; i++)
		a->fetch_add(1);
}

unsigned int scx_check_atomic_cas(struct scx_atomic_probe *p, unsigned int n)
{
	auto *a = reinterpret_cast<atomic<u64> *>(&p->counter);
	unsigned won = 0;
	for (unsigned i = 0; i < n; i++) {
		u64 seen = a->load(mo::relaxed);
		while (!a->compare_exchange(seen, seen + 1, mo::acq_rel))
			;
		won++;
	}
	return won;
}

unsigned int scx_check_lock_nesting(unsigned int n)
{
	spinlock outer, inner;
	if (!outer.init(lock_class::test_a) || !inner.init(lock_class::test_b))
		return 0;
	unsigned counter = 0;
	for (unsigned i = 0; i < n; i++) {
		lock_guard a(outer);
		lock_guard b(inner);
		counter++;
	}
	return counter;
}

int scx_check_work_completion(bool fire, unsigned int delay_us, unsigned int timeout_ms)
{
	work_probe probe;
	if (!probe.done.init())
		return -int(errc::nomem);
	probe.work = scx_env_work_new(work_probe_fire, &probe);
	if (!probe.work)
		return -int(errc::nomem);
	if (fire)
		scx_env_work_queue_delayed(probe.work, delay_us);
	status s = probe.done.wait(timeout_ms);
	scx_env_work_free(probe.work);
	return s.to_errno();
}

const char *scx_core_version(void) { return "softcx-core 0.1"; }

} // extern "C"
