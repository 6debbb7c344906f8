// SPDX-License-Identifier: GPL-2.0
// Object tables: numbers the hca hands out (EQN, CQN, mkey index, PD, UAR,
// counter set) and what each refers to. Allocation searches from a rotating
// cursor so a freed number is not handed out again at once, which makes a
// driver's use of a stale number visible.
#pragma once

#include "lib/new.h"
#include "lib/status.h"
#include "lib/types.h"

namespace scx::hca {

// Numbers [first, first + count) mapping to T*.
template <typename T> class obj_table {
public:
	obj_table() = default;
	obj_table(const obj_table &) = delete;
	obj_table &operator=(const obj_table &) = delete;
	~obj_table() { free_bytes(slots_); }

	status init(u32 first, u32 count)
	{
		first_ = first;
		count_ = count;
		slots_ = static_cast<T **>(alloc_bytes(sizeof(T *) * count));
		if (!slots_)
			return errc::nomem;
		for (u32 i = 0; i < count; i++)
			slots_[i] = nullptr;
		return status::ok();
	}

	// A free number for obj, or errc::nospc.
	result<u32> insert(T *obj)
	{
		for (u32 n = 0; n < count_; n++) {
			u32 i = (cursor_ + n) % count_;
			if (!slots_[i]) {
				slots_[i] = obj;
				cursor_ = (i + 1) % count_;
				return first_ + i;
			}
		}
		return errc::nospc;
	}

	T *get(u32 num) const
	{
		T *o = num >= first_ && num - first_ < count_ ? slots_[num - first_] : nullptr;
		return o == held_tag() ? nullptr : o;
	}

	T *remove(u32 num)
	{
		T *o = get(num);
		if (o)
			slots_[num - first_] = nullptr;
		return o;
	}

	// Puts obj at number num, which must be free (a number held for it).
	bool put(u32 num, T *obj)
	{
		if (num < first_ || num - first_ >= count_ || (slots_[num - first_] && slots_[num - first_] != held_tag()))
			return false;
		slots_[num - first_] = obj;
		return true;
	}

	// Holds 2^log free numbers starting at a multiple of 2^log, with no
	// object behind them: insert() passes them by, get() finds nothing.
	// The first of them, or errc::nospc.
	result<u32> hold_run(u32 log)
	{
		const u32 n = 1u << log;
		for (u32 start = (first_ + n - 1) & ~(n - 1); start - first_ + n <= count_; start += n) {
			u32 i = start - first_, k = 0;
			while (k < n && !slots_[i + k])
				k++;
			if (k < n)
				continue;
			for (k = 0; k < n; k++)
				slots_[i + k] = held_tag();
			return start;
		}
		return errc::nospc;
	}

	// Gives back a run hold_run() gave (false: [num, num + n) is not
	// wholly held).
	bool release_run(u32 num, u32 n)
	{
		if (num < first_ || num - first_ + n > count_)
			return false;
		for (u32 k = 0; k < n; k++)
			if (slots_[num - first_ + k] != held_tag())
				return false;
		for (u32 k = 0; k < n; k++)
			slots_[num - first_ + k] = nullptr;
		return true;
	}

	template <typename F> void for_each(F &&f)
	{
		for (u32 i = 0; i < count_; i++)
			if (slots_[i] && slots_[i] != held_tag())
				f(first_ + i, slots_[i]);
	}

	u32 first() const { return first_; }
	u32 capacity() const { return count_; }

private:
	// What a held number's slot points at: never dereferenced.
	static T *held_tag() { return reinterpret_cast<T *>(&held_byte_); }
	static inline char held_byte_;

	T **slots_ = nullptr;
	u32 first_ = 0;
	u32 count_ = 0;
	u32 cursor_ = 0;
};

// Numbers with no object behind them (PD, UAR, counter set), each counting
// the objects that use it so it cannot be freed under them, and keeping
// the uid of the context that allocated it (uctx.h).
class id_pool {
public:
	id_pool() = default;
	id_pool(const id_pool &) = delete;
	id_pool &operator=(const id_pool &) = delete;
	~id_pool()
	{
		free_bytes(state_);
		free_bytes(owner_);
	}

	status init(u32 first, u32 count)
	{
		first_ = first;
		count_ = count;
		state_ = static_cast<u32 *>(alloc_bytes(sizeof(u32) * count));
		owner_ = static_cast<u16 *>(alloc_bytes(sizeof(u16) * count));
		if (!state_ || !owner_)
			return errc::nomem;
		reset();
		return status::ok();
	}

	void reset()
	{
		for (u32 i = 0; i < count_; i++) {
			state_[i] = 0;
			owner_[i] = 0;
		}
		cursor_ = 0;
	}

	result<u32> alloc(u16 uid = 0)
	{
		for (u32 n = 0; n < count_; n++) {
			u32 i = (cursor_ + n) % count_;
			if (!state_[i]) {
				state_[i] = 1;
				owner_[i] = uid;
				cursor_ = (i + 1) % count_;
				return first_ + i;
			}
		}
		return errc::nospc;
	}

	bool valid(u32 id) const { return id >= first_ && id - first_ < count_ && state_[id - first_]; }
	// The uid of a valid id's allocator.
	u16 owner(u32 id) const { return valid(id) ? owner_[id - first_] : 0; }
	bool any_owned_by(u16 uid) const
	{
		for (u32 i = 0; i < count_; i++)
			if (state_[i] && owner_[i] == uid)
				return true;
		return false;
	}
	bool busy(u32 id) const { return valid(id) && state_[id - first_] > 1; }
	// Frees an id nothing refers to.
	void free(u32 id)
	{
		if (valid(id))
			state_[id - first_] = 0;
	}
	void ref(u32 id)
	{
		if (valid(id))
			state_[id - first_]++;
	}
	void unref(u32 id)
	{
		if (busy(id))
			state_[id - first_]--;
	}
	u32 first() const { return first_; }
	u32 capacity() const { return count_; }

private:
	u32 *state_ = nullptr;
	u16 *owner_ = nullptr;
	u32 first_ = 0;
	u32 count_ = 0;
	u32 cursor_ = 0;
};

} // namespace scx::hca
