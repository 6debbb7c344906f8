#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: the software IOMMU against a driver made buggy on purpose
# (build/verbs/iommu_bug from the overlay; debugfs inject mtt_hole /
# short_list): RDMA READs through an MR whose table has a hole or ends short
# get REM_ACCESS_ERR, and exactly one refusal (IOMMU) or translation fault
# (hca) is counted per access; guard memory stays intact. Then the domain's
# bookkeeping: every mapping the driver made is gone once its objects are.
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

bin=/harness/extra/iommu_bug dev=softcx_0
kmemleak_begin
softcx_up iommu
gidx=$GIDX
dbg=/sys/kernel/debug/softcx/$dev
read_iommu() { local k v; while read -r k v; do [ "$k" = "$1" ] && echo "$v"; done <$dbg/iommu; }
# The firmware pages the device asks for after INIT_HCA are given (and
# mapped) asynchronously: the baseline is taken once the count has held
# still for a second (at most 20 s), or it races with them.
base_maps=$(read_iommu mappings) still=0
for _ in $(seq 100); do
	sleep 0.2
	now=$(read_iommu mappings)
	if [ "$now" = "$base_maps" ]; then
		still=$((still + 1))
		[ $still -ge 5 ] && break
	else
		base_maps=$now still=0
	fi
done
base_pages=$(read_iommu mapped_pages)

run_program iommu_bug 300 "$bin" -d $dev -g "$gidx" -D $dbg
cat $dbg/iommu
# The process is gone: its MRs, CQ, QPs and doorbell pages are unmapped.
maps=$(read_iommu mappings) pages=$(read_iommu mapped_pages)
if [ "$maps" = "$base_maps" ] && [ "$pages" = "$base_pages" ]; then
	result iommu_mappings_back PASS "mappings $maps, pages $pages, as before the program"
else
	result iommu_mappings_back FAIL "mappings $base_maps -> $maps, pages $base_pages -> $pages"
fi
dmesg | grep -m2 'IOMMU refused' >&2
if grep -q "softcx: $dev: IOMMU refused" < <(dmesg); then
	result iommu_logged_once PASS "$(dmesg | grep -c "IOMMU refused") log line(s)"
else
	result iommu_logged_once FAIL "no log line for the refusals"
fi
softcx_down iommu
kmemleak_check softcx
finish
