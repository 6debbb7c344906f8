/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM softcx

#if !defined(SOFTCX_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SOFTCX_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(cmd_post,
	TP_PROTO(const char *dev, u16 opcode, u8 slot, u8 token),
	TP_ARGS(dev, opcode, slot, token),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u16, opcode)
		__field(u8, slot)
		__field(u8, token)
	),
	TP_fast_assign(
		__assign_str(dev, dev);
		__entry->opcode = opcode;
		__entry->slot = slot;
		__entry->token = token;
	),
	TP_printk("%s opcode=0x%x slot=%u token=0x%x", __get_str(dev), __entry->opcode,
		  __entry->slot, __entry->token)
);

TRACE_EVENT(cmd_done,
	TP_PROTO(const char *dev, u16 opcode, u8 slot, u8 status, u32 syndrome, u64 latency_ns),
	TP_ARGS(dev, opcode, slot, status, syndrome, latency_ns),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u16, opcode)
		__field(u8, slot)
		__field(u8, status)
		__field(u32, syndrome)
		__field(u64, latency_ns)
	),
	TP_fast_assign(
		__assign_str(dev, dev);
		__entry->opcode = opcode;
		__entry->slot = slot;
		__entry->status = status;
		__entry->syndrome = syndrome;
		__entry->latency_ns = latency_ns;
	),
	TP_printk("%s opcode=0x%x slot=%u status=0x%x syndrome=0x%x latency_ns=%llu",
		  __get_str(dev), __entry->opcode, __entry->slot, __entry->status,
		  __entry->syndrome, __entry->latency_ns)
);

TRACE_EVENT(eqe,
	TP_PROTO(const char *dev, u32 eqn, u8 type, u32 cons_index),
	TP_ARGS(dev, eqn, type, cons_index),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, eqn)
		__field(u8, type)
		__field(u32, cons_index)
	),
	TP_fast_assign(
		__assign_str(dev, dev);
		__entry->eqn = eqn;
		__entry->type = type;
		__entry->cons_index = cons_index;
	),
	TP_printk("%s eqn=%u type=0x%x ci=%u", __get_str(dev), __entry->eqn, __entry->type,
		  __entry->cons_index)
);

#endif /* SOFTCX_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
