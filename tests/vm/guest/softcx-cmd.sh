#!/bin/bash
# In-guest: one softcx function through the PRM control plane in the kernel.
# Bring-up at insmod, command completion by interrupt (counted in
# /proc/interrupts), NOPs, an injected status/syndrome, an injected timeout,
# link down/up, and teardown at rmmod; the queue stays usable after each fault.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
kmemleak_begin

dbg=/sys/kernel/debug/softcx/softcx0
NOP=0x80d

irq_count() { # irq_count NAME: interrupts delivered to handler NAME, all CPUs
	local line f sum=0
	line=$(grep -m1 " $1\$" /proc/interrupts) || { echo 0; return; }
	set -- $line
	shift
	for f; do
		[[ $f =~ ^[0-9]+$ ]] || break
		sum=$((sum + f))
	done
	echo "$sum"
}
nop_count() {
	local line
	line=$(grep -m1 '^0x080d ' $dbg/cmd_stats) || { echo 0; return; }
	set -- $line
	echo "$3"
}

dmesg -c >/dev/null
if load_softcx num_devices=1 cmd_timeout_ms=3000 &&
	grep -q 'softcx0: up' < <(dmesg); then
	result bringup PASS
else
	dmesg | tail -20
	result bringup FAIL
	finish
	exit 1
fi
dmesg | grep softcx
cat $dbg/info
grep softcx /proc/interrupts
if grep -q '^cmd_mode events' $dbg/info; then result cmd_event_mode PASS; else result cmd_event_mode FAIL; fi
for name in softcx0-async softcx0-comp0 softcx0-comp1; do
	if grep -q " $name\$" /proc/interrupts; then result "irq_$name" PASS; else result "irq_$name" FAIL; fi
done

before_irq=$(irq_count softcx0-async)
before_nop=$(nop_count)
if echo 1000 >$dbg/nop; then result nop_1000 PASS; else result nop_1000 FAIL; fi
after_irq=$(irq_count softcx0-async)
after_nop=$(nop_count)
if [ $((after_nop - before_nop)) -eq 1000 ]; then
	result nop_counted PASS "$before_nop -> $after_nop"
else
	result nop_counted FAIL "$before_nop -> $after_nop"
fi
if [ $((after_irq - before_irq)) -ge 1000 ]; then
	result async_irqs_rise PASS "$before_irq -> $after_irq"
else
	result async_irqs_rise FAIL "$before_irq -> $after_irq"
fi

# An injected PRM status comes back as the documented errno, with one log line.
dmesg -c >/dev/null
echo "fail $NOP 0x3 0x1234abcd 1" >$dbg/inject
if echo 1 >$dbg/nop 2>/tmp/err; then
	result injected_status FAIL "NOP succeeded"
else
	cat /tmp/err
	if grep -q 'Invalid argument' /tmp/err && [[ $(dmesg | grep 'NOP(0x80d)') == *0x1234abcd* ]]; then
		result injected_status PASS "$(dmesg | grep -i -m1 0x1234abcd)"
	else
		dmesg | tail -5
		result injected_status FAIL
	fi
fi
if echo 10 >$dbg/nop; then result usable_after_status PASS; else result usable_after_status FAIL; fi

# A dropped command times out with the opcode named; the queue survives it.
dmesg -c >/dev/null
echo "drop $NOP 1" >$dbg/inject
t0=$SECONDS
if echo 1 >$dbg/nop 2>/tmp/err; then
	result injected_timeout FAIL "NOP succeeded"
else
	cat /tmp/err
	if grep -q 'timed out' /tmp/err && grep -q 'NOP(0x80d) timed out' < <(dmesg); then
		result injected_timeout PASS "$((SECONDS - t0)) s: $(dmesg | grep -m1 'NOP(0x80d) timed out')"
	else
		dmesg | tail -5
		result injected_timeout FAIL
	fi
fi
if echo 10 >$dbg/nop; then result usable_after_timeout PASS; else result usable_after_timeout FAIL; fi

# Link down/up: PORT_CHANGE events on the async EQ.
eqes() { local l; l=$(grep -m1 '^0 ' $dbg/eqs); set -- $l; echo "$7"; }
e0=$(eqes)
echo "link down" >$dbg/inject && echo "link up" >$dbg/inject
sleep 1
e1=$(eqes)
if [ $((e1 - e0)) -ge 2 ]; then result port_change_eqes PASS "$e0 -> $e1"; else result port_change_eqes FAIL "$e0 -> $e1"; fi
cat $dbg/cmd_stats
cat $dbg/eqs

# Tracepoints: 10 NOPs show up as softcx:cmd_post, cmd_done and eqe lines.
tr=/sys/kernel/tracing
[ -e $tr/trace ] || mount -t tracefs tracefs $tr 2>/dev/null || tr=/sys/kernel/debug/tracing
if [ -d $tr/events/softcx ]; then
	echo 0 >$tr/tracing_on && echo >$tr/trace
	for ev in cmd_post cmd_done eqe; do echo 1 >$tr/events/softcx/$ev/enable; done
	echo 1 >$tr/tracing_on
	echo 10 >$dbg/nop
	echo 0 >$tr/tracing_on
	for ev in cmd_post cmd_done eqe; do echo 0 >$tr/events/softcx/$ev/enable; done
	trace=$(<$tr/trace)
	posts=$(grep -c 'cmd_post: softcx0 opcode=0x80d ' <<<"$trace")
	dones=$(grep -c 'cmd_done: softcx0 opcode=0x80d .*status=0x0 syndrome=0x0 ' <<<"$trace")
	eqes=$(grep -c 'eqe: softcx0 eqn=[0-9]* type=0xa ' <<<"$trace")
	grep -m6 softcx0 <<<"$trace"
	if [ "$posts" -ge 10 ] && [ "$dones" -ge 10 ] && [ "$eqes" -ge 10 ]; then
		result tracepoints PASS "cmd_post $posts, cmd_done $dones, eqe $eqes"
	else
		result tracepoints FAIL "cmd_post $posts, cmd_done $dones, eqe $eqes"
	fi
	echo >$tr/trace
else
	result tracepoints FAIL "no $tr/events/softcx"
fi

dmesg -c >/dev/null
if run_t 120 rmmod softcx && grep -q 'softcx0: removed' < <(dmesg); then
	result teardown PASS
else
	result teardown FAIL
fi
dmesg
if grep -q softcx /proc/interrupts; then result irqs_freed FAIL; else result irqs_freed PASS; fi
kmemleak_check softcx
finish
