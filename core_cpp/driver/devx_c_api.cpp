// SPDX-License-Identifier: GPL-2.0
// The DevX part of softcx/verbs.h over the driver.
#include "driver/c_drv.h"
#include "driver/commands.h"
#include "driver/devx.h"
#include "driver/devx_event.h"
#include "driver/devx_obj.h"
#include "prm/cmd.h"
#include "softcx/verbs.h"

using namespace scx;

extern "C" {

int scx_devx_create_uctx(struct scx_drv *drv, uint32_t cap, uint16_t *uid)
{
	result<u16> u = driver::cmd::create_uctx(drv->dev.cmd(), cap);
	if (!u)
		return u.error().to_errno();
	*uid = *u;
	return 0;
}

int scx_devx_destroy_uctx(struct scx_drv *drv, uint16_t uid)
{
	return driver::cmd::destroy_uctx(drv->dev.cmd(), uid).to_errno();
}

int scx_devx_general(struct scx_drv *drv, uint16_t ctx_uid, uint16_t whitelist_uid, void *in, uint32_t inlen,
		     void *out, uint32_t outlen)
{
	return driver::devx::general(drv->dev, ctx_uid, whitelist_uid, static_cast<u8 *>(in), inlen,
				     static_cast<u8 *>(out), outlen)
		.to_errno();
}

int scx_devx_query_eqn(struct scx_drv *drv, uint32_t vector, uint32_t *eqn)
{
	result<u32> e = driver::devx::query_eqn(drv->dev, vector);
	if (!e)
		return e.error().to_errno();
	*eqn = *e;
	return 0;
}

int scx_devx_create_umem(struct scx_drv *drv, uint16_t uid, uint32_t page_shift, uint32_t page_offset,
			 const uint64_t *pages, uint32_t npages, bool writable, uint32_t *id)
{
	result<u32> u = driver::devx::create_umem(drv->dev, uid, page_shift, page_offset, pages, npages, writable);
	if (!u)
		return u.error().to_errno();
	*id = *u;
	return 0;
}

int scx_devx_destroy_umem(struct scx_drv *drv, uint16_t uid, uint32_t id)
{
	return driver::devx::destroy_umem(drv->dev, uid, id).to_errno();
}

int scx_devx_obj_create(struct scx_drv *drv, uint16_t uid, void *in, uint32_t inlen, void *out, uint32_t outlen,
			uint64_t *name, uint8_t *destroy)
{
	driver::devx::obj_destroy_cmd d;
	static_assert(sizeof(d.in) == SCX_DEVX_DESTROY_BYTES);
	status s = driver::devx::obj_create(drv->dev, uid, static_cast<u8 *>(in), inlen, static_cast<u8 *>(out),
					    outlen, name, &d);
	if (s)
		copy_bytes(destroy, d.in, sizeof(d.in));
	return s.to_errno();
}

int scx_devx_obj_use(struct scx_drv *drv, uint16_t uid, int method, uint64_t name, void *in, uint32_t inlen,
		     void *out, uint32_t outlen)
{
	if (method != SCX_DEVX_MODIFY && method != SCX_DEVX_QUERY)
		return -int(errc::inval);
	auto m = method == SCX_DEVX_MODIFY ? driver::devx::obj_method::modify : driver::devx::obj_method::query;
	return driver::devx::obj_use(drv->dev, uid, m, name, static_cast<u8 *>(in), inlen, static_cast<u8 *>(out),
				     outlen)
		.to_errno();
}

int scx_devx_obj_destroy(struct scx_drv *drv, const uint8_t *destroy)
{
	driver::devx::obj_destroy_cmd d;
	copy_bytes(d.in, destroy, sizeof(d.in));
	return driver::devx::obj_destroy(drv->dev, d).to_errno();
}

uint64_t scx_devx_cq_name(uint32_t cqn) { return driver::devx::obj_name(prm::op::create_cq, cqn); }
uint64_t scx_devx_qp_name(uint32_t qpn) { return driver::devx::obj_name(prm::op::create_qp, qpn); }
bool scx_devx_event_valid(uint64_t name, uint16_t type) { return driver::devx::event_valid(name, type); }
uint64_t scx_devx_event_key(uint8_t type, uint64_t name) { return driver::devx::event_key(type, name); }

} // extern "C"
