// SPDX-License-Identifier: GPL-2.0
/*
 * DevX events and asynchronous commands. The event channel
 * (MLX5_IB_OBJECT_DEVX_ASYNC_EVENT_FD) is a file a DevX context reads its
 * subscribed events from (DEVX_SUBSCRIBE_EVENT: event types on one of its
 * DEVX_OBJ objects, or unaffiliated ones), each with the subscriber's
 * cookie and the EQE (or the cookie alone, OMIT_DATA), or an eventfd the
 * subscription names is signalled instead. The async command fd
 * (MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD) gets DEVX_OBJ_ASYNC_QUERY's answers:
 * the query runs when asked, its output waits on the fd with the caller's
 * wr_id. Which type may be subscribed on which object, and the key an EQE
 * reaches subscribers under, are the driver's (core_cpp/driver/devx_event.h).
 */
#include "kmod.h"

#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME softcx_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "ib_priv.h"

/* Events waiting on one channel at most; past it, a read says EOVERFLOW. */
#define SCX_DEVX_EV_MAX 4096
/* Bytes of answers waiting on one async command fd at most (EAGAIN). */
#define SCX_DEVX_ASYNC_BYTES (1 << 20)
#define SCX_EQE_BYTES 64

struct scx_devx_ev_file {
	struct ib_uobject uobj;	/* first: an FD object */
	struct scx_ibdev *sdev;
	spinlock_t lock;	/* events, ready, queued, overflow, gone */
	wait_queue_head_t wait;
	struct list_head events;	/* scx_devx_ev (with data) */
	struct list_head ready;		/* subscriptions with an event (OMIT_DATA) */
	unsigned int queued;
	bool omit_data;
	bool overflow;
	bool gone;
	struct list_head subs;	/* its subscriptions (sdev->devx_sub_lock) */
};

/* What a read gives: struct mlx5_ib_uapi_devx_async_event_hdr, the EQE. */
struct scx_devx_ev {
	struct list_head node;
	u64 cookie;
	u8 eqe[SCX_EQE_BYTES];	/* right after the cookie */
};

/* One event type on one object (or unaffiliated), for one channel. */
struct scx_devx_sub {
	struct hlist_node hnode;	/* sdev->devx_subs, read under RCU */
	struct list_head file_node;
	struct list_head obj_node;	/* its DEVX_OBJ's subs; empty if none */
	struct list_head ready_node;	/* in file->ready (OMIT_DATA) */
	bool queued;
	struct scx_devx_ev_file *file;
	struct eventfd_ctx *eventfd;	/* signalled instead, if set */
	u64 key;
	u64 cookie;
};

void scx_devx_events_init(struct scx_ibdev *sdev)
{
	hash_init(sdev->devx_subs);
	mutex_init(&sdev->devx_sub_lock);
}

/* One event for s's channel (hardirq); allocation-free with OMIT_DATA. */
static void scx_devx_ev_queue(struct scx_devx_sub *s, const u8 *eqe)
{
	struct scx_devx_ev_file *f = s->file;
	struct scx_devx_ev *ev = NULL;
	unsigned long flags;

	if (!f->omit_data)
		ev = kmalloc(sizeof(*ev), GFP_ATOMIC);
	spin_lock_irqsave(&f->lock, flags);
	if (f->gone) {
		kfree(ev);
	} else if (f->omit_data) {
		if (!s->queued) {
			s->queued = true;
			list_add_tail(&s->ready_node, &f->ready);
		}
	} else if (!ev || f->queued >= SCX_DEVX_EV_MAX) {
		f->overflow = true;
		kfree(ev);
	} else {
		ev->cookie = s->cookie;
		memcpy(ev->eqe, eqe, SCX_EQE_BYTES);
		list_add_tail(&ev->node, &f->events);
		f->queued++;
	}
	spin_unlock_irqrestore(&f->lock, flags);
	wake_up_interruptible(&f->wait);
}

/* The driver's user_event hook (hardirq): an EQE to its subscribers. */
void scx_devx_dispatch(void *ctx, u64 key, const u8 *eqe)
{
	struct scx_ibdev *sdev = ctx;
	struct scx_devx_sub *s;

	rcu_read_lock();
	hash_for_each_possible_rcu(sdev->devx_subs, s, hnode, key) {
		if (s->key != key)
			continue;
		if (s->eventfd)
			eventfd_signal(s->eventfd, 1);
		else
			scx_devx_ev_queue(s, eqe);
	}
	rcu_read_unlock();
}

/* Unhook s (devx_sub_lock held); the caller frees it after a grace period. */
static void scx_devx_sub_unhook(struct scx_devx_sub *s)
{
	struct scx_devx_ev_file *f = s->file;

	hash_del_rcu(&s->hnode);
	list_del(&s->file_node);
	list_del_init(&s->obj_node);
	spin_lock_irq(&f->lock);
	if (s->queued)
		list_del(&s->ready_node);
	s->queued = false;
	spin_unlock_irq(&f->lock);
}

static void scx_devx_subs_free(struct ib_device *ib, struct list_head *gone)
{
	struct scx_devx_sub *s, *n;

	if (list_empty(gone))
		return;
	/* No dispatch still holds one of them. */
	synchronize_rcu();
	list_for_each_entry_safe(s, n, gone, file_node) {
		if (s->eventfd)
			eventfd_ctx_put(s->eventfd);
		uverbs_uobject_put(&s->file->uobj);
		kfree(s);
		scx_obj_dec(ib, SCX_OBJ_DEVX_SUB);
	}
}

/* A DEVX_OBJ goes: so do the subscriptions on it. */
void scx_devx_obj_subs_drop(struct scx_ibdev *sdev, struct list_head *obj_subs)
{
	struct scx_devx_sub *s, *n;
	LIST_HEAD(gone);

	mutex_lock(&sdev->devx_sub_lock);
	list_for_each_entry_safe(s, n, obj_subs, obj_node) {
		scx_devx_sub_unhook(s);
		list_add(&s->file_node, &gone);
	}
	mutex_unlock(&sdev->devx_sub_lock);
	scx_devx_subs_free(&sdev->ib, &gone);
}

static ssize_t scx_devx_ev_read(struct file *filp, char __user *buf, size_t count, loff_t *pos)
{
	struct scx_devx_ev_file *f = filp->private_data;
	size_t size = sizeof(u64) + (f->omit_data ? 0 : SCX_EQE_BYTES);
	struct scx_devx_ev *ev = NULL;
	u64 cookie = 0;
	int err;

	spin_lock_irq(&f->lock);
	while (list_empty(&f->events) && list_empty(&f->ready) && !f->overflow && !f->gone) {
		spin_unlock_irq(&f->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(f->wait, !list_empty(&f->events) ||
					       !list_empty(&f->ready) || f->overflow || f->gone);
		if (err)
			return err;
		spin_lock_irq(&f->lock);
	}
	if (f->overflow) {
		f->overflow = false;
		spin_unlock_irq(&f->lock);
		return -EOVERFLOW;
	}
	if (f->gone) {
		spin_unlock_irq(&f->lock);
		return -EIO;
	}
	if (count < size) {
		spin_unlock_irq(&f->lock);
		return -ENOSPC;
	}
	if (f->omit_data) {
		struct scx_devx_sub *s = list_first_entry(&f->ready, struct scx_devx_sub, ready_node);

		list_del(&s->ready_node);
		s->queued = false;
		cookie = s->cookie;
	} else {
		ev = list_first_entry(&f->events, struct scx_devx_ev, node);
		list_del(&ev->node);
		f->queued--;
	}
	spin_unlock_irq(&f->lock);
	err = copy_to_user(buf, ev ? (void *)&ev->cookie : (void *)&cookie, size) ? -EFAULT : 0;
	kfree(ev);
	return err ?: size;
}

static __poll_t scx_devx_ev_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct scx_devx_ev_file *f = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &f->wait, wait);
	spin_lock_irq(&f->lock);
	if (!list_empty(&f->events) || !list_empty(&f->ready) || f->overflow)
		mask = EPOLLIN | EPOLLRDNORM;
	if (f->gone)
		mask |= EPOLLIN | EPOLLRDHUP;
	spin_unlock_irq(&f->lock);
	return mask;
}

static const struct file_operations scx_devx_ev_fops = {
	.owner = THIS_MODULE,
	.read = scx_devx_ev_read,
	.poll = scx_devx_ev_poll,
	.release = uverbs_uobject_fd_release,
	.llseek = no_llseek,
};

/* The channel's end (close, or its context's): its subscriptions, its events. */
static void scx_devx_ev_file_destroy(struct ib_uobject *uobj, enum rdma_remove_reason why)
{
	struct scx_devx_ev_file *f = container_of(uobj, struct scx_devx_ev_file, uobj);
	struct scx_devx_sub *s, *n;
	struct scx_devx_ev *ev, *m;
	LIST_HEAD(gone);

	mutex_lock(&f->sdev->devx_sub_lock);
	list_for_each_entry_safe(s, n, &f->subs, file_node) {
		scx_devx_sub_unhook(s);
		list_add(&s->file_node, &gone);
	}
	mutex_unlock(&f->sdev->devx_sub_lock);
	spin_lock_irq(&f->lock);
	f->gone = true;
	list_for_each_entry_safe(ev, m, &f->events, node)
		kfree(ev);
	INIT_LIST_HEAD(&f->events);
	f->queued = 0;
	spin_unlock_irq(&f->lock);
	wake_up_interruptible(&f->wait);
	scx_devx_subs_free(&f->sdev->ib, &gone);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_ASYNC_EVENT_FD_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, MLX5_IB_ATTR_DEVX_ASYNC_EVENT_FD_ALLOC_HANDLE);
	struct scx_devx_ev_file *f = container_of(uobj, struct scx_devx_ev_file, uobj);
	u32 flags;
	int err;

	/* Whole before any refusal: a refused create may still be destroyed. */
	f->sdev = to_sdev(uobj->context->device);
	spin_lock_init(&f->lock);
	init_waitqueue_head(&f->wait);
	INIT_LIST_HEAD(&f->events);
	INIT_LIST_HEAD(&f->ready);
	INIT_LIST_HEAD(&f->subs);
	if (!scx_udata_uid(&attrs->driver_udata))
		return -EINVAL;
	err = uverbs_get_flags32(&flags, attrs, MLX5_IB_ATTR_DEVX_ASYNC_EVENT_FD_ALLOC_FLAGS,
				 MLX5_IB_UAPI_DEVX_CR_EV_CH_FLAGS_OMIT_DATA);
	if (err)
		return err;
	f->omit_data = flags & MLX5_IB_UAPI_DEVX_CR_EV_CH_FLAGS_OMIT_DATA;
	return 0;
}

/* New subscriptions for `types` on the object called `name` (0: none). */
static int scx_devx_subs_new(struct scx_devx_ev_file *f, u64 name, const u16 *types, int n,
			     u64 cookie, int fd, struct list_head *made)
{
	struct scx_devx_sub *s;
	int i;

	for (i = 0; i < n; i++) {
		if (!scx_devx_event_valid(name, types[i]))
			return -EINVAL;
		s = kzalloc(sizeof(*s), GFP_KERNEL);
		if (!s)
			return -ENOMEM;
		INIT_LIST_HEAD(&s->obj_node);
		list_add_tail(&s->file_node, made);
		s->file = f;
		s->key = scx_devx_event_key(types[i], name);
		s->cookie = cookie;
		if (fd >= 0) {
			s->eventfd = eventfd_ctx_fdget(fd);
			if (IS_ERR(s->eventfd)) {
				int err = PTR_ERR(s->eventfd);

				s->eventfd = NULL;
				return err;
			}
		}
		/* Each holds its channel's memory (not the channel open). */
		uverbs_uobject_get(&f->uobj);
		scx_obj_inc(&f->sdev->ib, SCX_OBJ_DEVX_SUB);
	}
	return 0;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_SUBSCRIBE_EVENT)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *fu = uverbs_attr_get_uobject(attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_FD_HANDLE);
	struct scx_devx_ev_file *f = container_of(fu, struct scx_devx_ev_file, uobj);
	struct scx_ibdev *sdev = to_sdev(fu->context->device);
	const u16 *types = uverbs_attr_get_alloced_ptr(attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_TYPE_NUM_LIST);
	int len = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_TYPE_NUM_LIST);
	struct scx_devx_obj *obj = NULL;
	struct scx_devx_sub *s, *n;
	u64 cookie = 0;
	int fd = -1, err;
	LIST_HEAD(made);

	if (!scx_udata_uid(&attrs->driver_udata) || IS_ERR(types) || len % sizeof(u16))
		return -EINVAL;
	if (uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_OBJ_HANDLE))
		obj = uverbs_attr_get_obj(attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_OBJ_HANDLE);
	if (uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_COOKIE) &&
	    uverbs_copy_from(&cookie, attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_COOKIE))
		return -EFAULT;
	if (uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_FD_NUM)) {
		/* An eventfd carries one event type: it cannot say which. */
		if (uverbs_copy_from(&fd, attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_FD_NUM))
			return -EFAULT;
		if (len != sizeof(u16) || fd < 0)
			return -EINVAL;
	}
	err = scx_devx_subs_new(f, obj ? obj->name : 0, types, len / sizeof(u16), cookie, fd, &made);
	if (err) {
		/* Never hooked: no reader can hold them. */
		list_for_each_entry_safe(s, n, &made, file_node) {
			if (s->eventfd)
				eventfd_ctx_put(s->eventfd);
			uverbs_uobject_put(&f->uobj);
			kfree(s);
			scx_obj_dec(&sdev->ib, SCX_OBJ_DEVX_SUB);
		}
		return err;
	}
	mutex_lock(&sdev->devx_sub_lock);
	list_for_each_entry_safe(s, n, &made, file_node) {
		list_move_tail(&s->file_node, &f->subs);
		if (obj)
			list_add_tail(&s->obj_node, &obj->subs);
		hash_add_rcu(sdev->devx_subs, &s->hnode, s->key);
	}
	mutex_unlock(&sdev->devx_sub_lock);
	return 0;
}

struct scx_devx_cmd_file {
	struct ib_uobject uobj;	/* first: an FD object */
	spinlock_t lock;	/* done, bytes, gone */
	wait_queue_head_t wait;
	struct list_head done;	/* scx_devx_cmd_done */
	size_t bytes;
	bool gone;
};

/* What a read gives: struct mlx5_ib_uapi_devx_async_cmd_hdr, the output. */
struct scx_devx_cmd_done {
	struct list_head node;
	size_t len;		/* of wr_id and the output */
	u64 wr_id;
	u8 out[];		/* right after wr_id */
};

static ssize_t scx_devx_cmd_read(struct file *filp, char __user *buf, size_t count, loff_t *pos)
{
	struct scx_devx_cmd_file *f = filp->private_data;
	struct scx_devx_cmd_done *d;
	int err;

	spin_lock_irq(&f->lock);
	while (list_empty(&f->done) && !f->gone) {
		spin_unlock_irq(&f->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(f->wait, !list_empty(&f->done) || f->gone);
		if (err)
			return err;
		spin_lock_irq(&f->lock);
	}
	if (f->gone) {
		spin_unlock_irq(&f->lock);
		return -EIO;
	}
	d = list_first_entry(&f->done, struct scx_devx_cmd_done, node);
	if (count < d->len) {
		spin_unlock_irq(&f->lock);
		return -ENOSPC;
	}
	list_del(&d->node);
	f->bytes -= d->len;
	spin_unlock_irq(&f->lock);
	err = copy_to_user(buf, &d->wr_id, d->len) ? -EFAULT : (int)d->len;
	kfree(d);
	return err;
}

static __poll_t scx_devx_cmd_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct scx_devx_cmd_file *f = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &f->wait, wait);
	spin_lock_irq(&f->lock);
	if (!list_empty(&f->done))
		mask = EPOLLIN | EPOLLRDNORM;
	if (f->gone)
		mask |= EPOLLIN | EPOLLRDHUP;
	spin_unlock_irq(&f->lock);
	return mask;
}

static const struct file_operations scx_devx_cmd_fops = {
	.owner = THIS_MODULE,
	.read = scx_devx_cmd_read,
	.poll = scx_devx_cmd_poll,
	.release = uverbs_uobject_fd_release,
	.llseek = no_llseek,
};

static void scx_devx_cmd_file_destroy(struct ib_uobject *uobj, enum rdma_remove_reason why)
{
	struct scx_devx_cmd_file *f = container_of(uobj, struct scx_devx_cmd_file, uobj);
	struct scx_devx_cmd_done *d, *n;
	LIST_HEAD(unread);

	spin_lock_irq(&f->lock);
	f->gone = true;
	list_splice_init(&f->done, &unread);
	f->bytes = 0;
	spin_unlock_irq(&f->lock);
	wake_up_interruptible(&f->wait);
	list_for_each_entry_safe(d, n, &unread, node)
		kfree(d);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_ASYNC_CMD_FD_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, MLX5_IB_ATTR_DEVX_ASYNC_CMD_FD_ALLOC_HANDLE);
	struct scx_devx_cmd_file *f = container_of(uobj, struct scx_devx_cmd_file, uobj);

	spin_lock_init(&f->lock);
	init_waitqueue_head(&f->wait);
	INIT_LIST_HEAD(&f->done);
	return scx_udata_uid(&attrs->driver_udata) ? 0 : -EINVAL;
}

/*
 * DEVX_OBJ_ASYNC_QUERY: the query runs now, as DEVX_OBJ_QUERY does; its
 * output (a device status included) waits on the fd with wr_id. A query
 * the driver refuses is refused here, and nothing is queued.
 */
static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OBJ_ASYNC_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *fu = uverbs_attr_get_uobject(attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_FD);
	struct scx_devx_cmd_file *f = container_of(fu, struct scx_devx_cmd_file, uobj);
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_HANDLE);
	void *in = uverbs_attr_get_alloced_ptr(attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_CMD_IN);
	int inlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_CMD_IN);
	u16 uid = scx_udata_uid(&attrs->driver_udata);
	struct scx_devx_cmd_done *d;
	u64 name = scx_devx_handle_name(uobj);
	u16 outlen;
	int err;

	if (!uid || !name)
		return -EINVAL;
	err = uverbs_get_const(&outlen, attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_OUT_LEN);
	if (err)
		return err;
	if (outlen < 16)
		return -EINVAL;
	d = kzalloc(sizeof(*d) + outlen, GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->len = sizeof(d->wr_id) + outlen;
	err = uverbs_copy_from(&d->wr_id, attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_WR_ID);
	if (!err)
		err = scx_devx_obj_use(to_drv(uobj->context->device), uid, SCX_DEVX_QUERY, name, in,
				       inlen, d->out, outlen);
	if (err && err != -EREMOTEIO)
		goto err_free;
	spin_lock_irq(&f->lock);
	err = f->gone ? -EIO : f->bytes + d->len > SCX_DEVX_ASYNC_BYTES ? -EAGAIN : 0;
	if (!err) {
		list_add_tail(&d->node, &f->done);
		f->bytes += d->len;
	}
	spin_unlock_irq(&f->lock);
	if (err)
		goto err_free;
	wake_up_interruptible(&f->wait);
	return 0;

err_free:
	kfree(d);
	return err;
}

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_ASYNC_EVENT_FD_ALLOC,
	UVERBS_ATTR_FD(MLX5_IB_ATTR_DEVX_ASYNC_EVENT_FD_ALLOC_HANDLE, MLX5_IB_OBJECT_DEVX_ASYNC_EVENT_FD,
		       UVERBS_ACCESS_NEW, UA_MANDATORY),
	UVERBS_ATTR_FLAGS_IN(MLX5_IB_ATTR_DEVX_ASYNC_EVENT_FD_ALLOC_FLAGS,
			     enum mlx5_ib_uapi_devx_create_event_channel_flags, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_DEVX_ASYNC_EVENT_FD,
			    UVERBS_TYPE_ALLOC_FD(sizeof(struct scx_devx_ev_file), scx_devx_ev_file_destroy,
						 &scx_devx_ev_fops, "[devx_async_event]", O_RDONLY),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_ASYNC_EVENT_FD_ALLOC));

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_ASYNC_CMD_FD_ALLOC,
	UVERBS_ATTR_FD(MLX5_IB_ATTR_DEVX_ASYNC_CMD_FD_ALLOC_HANDLE, MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD,
		       UVERBS_ACCESS_NEW, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD,
			    UVERBS_TYPE_ALLOC_FD(sizeof(struct scx_devx_cmd_file), scx_devx_cmd_file_destroy,
						 &scx_devx_cmd_fops, "[devx_async_cmd]", O_RDONLY),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_ASYNC_CMD_FD_ALLOC));

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_SUBSCRIBE_EVENT,
	UVERBS_ATTR_FD(MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_FD_HANDLE, MLX5_IB_OBJECT_DEVX_ASYNC_EVENT_FD,
		       UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_OBJ_HANDLE, MLX5_IB_OBJECT_DEVX_OBJ,
			UVERBS_ACCESS_READ, UA_OPTIONAL),
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_TYPE_NUM_LIST, UVERBS_ATTR_MIN_SIZE(sizeof(u16)),
			   UA_MANDATORY, UA_ALLOC_AND_COPY),
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_COOKIE, UVERBS_ATTR_TYPE(u64), UA_OPTIONAL),
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_FD_NUM, UVERBS_ATTR_TYPE(u32), UA_OPTIONAL));

/* Merged into MLX5_IB_OBJECT_DEVX's global methods (ib_devx.c). */
ADD_UVERBS_METHODS(scx_devx_subscribe, MLX5_IB_OBJECT_DEVX, &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_SUBSCRIBE_EVENT));

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_OBJ_ASYNC_QUERY,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_HANDLE, UVERBS_IDR_ANY_OBJECT, UVERBS_ACCESS_READ,
			UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_CMD_IN, UVERBS_ATTR_MIN_SIZE(16),
			   UA_MANDATORY, UA_ALLOC_AND_COPY),
	UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_OUT_LEN, u16, UA_MANDATORY),
	UVERBS_ATTR_FD(MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_FD, MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD,
		       UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_WR_ID, UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

/* Merged into MLX5_IB_OBJECT_DEVX_OBJ's methods (ib_devx.c). */
ADD_UVERBS_METHODS(scx_devx_obj_async, MLX5_IB_OBJECT_DEVX_OBJ,
		   &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_ASYNC_QUERY));

/*
 * Offered as DevX contexts' objects are (only with devx=1); the methods
 * that name the fds go with them.
 */
const struct uapi_definition scx_devx_event_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX_ASYNC_EVENT_FD,
				      UAPI_DEF_IS_OBJ_SUPPORTED(scx_devx_ctx_objs_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD,
				      UAPI_DEF_IS_OBJ_SUPPORTED(scx_devx_ctx_objs_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE(MLX5_IB_OBJECT_DEVX, &scx_devx_subscribe),
	UAPI_DEF_CHAIN_OBJ_TREE(MLX5_IB_OBJECT_DEVX_OBJ, &scx_devx_obj_async),
	{},
};
