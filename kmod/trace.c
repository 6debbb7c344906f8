// SPDX-License-Identifier: GPL-2.0
/* The env's trace hooks, as tracepoints under events/softcx/. */
#include "kmod.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

#include "softcx/env.h"

void scx_env_trace_cmd_post(const char *dev, uint16_t opcode, uint8_t slot, uint8_t token)
{
	trace_cmd_post(dev, opcode, slot, token);
}

void scx_env_trace_cmd_done(const char *dev, uint16_t opcode, uint8_t slot, uint8_t status,
			    uint32_t syndrome, uint64_t latency_ns)
{
	trace_cmd_done(dev, opcode, slot, status, syndrome, latency_ns);
}

void scx_env_trace_eqe(const char *dev, uint32_t eqn, uint8_t type, uint32_t cons_index)
{
	trace_eqe(dev, eqn, type, cons_index);
}
