#!/bin/bash
# check-module.sh KO KVER: the module is GPL, carries the kernel's vermagic,
# leaves no C++ runtime symbol undefined, has a version and documents every
# parameter with its default.
set -euo pipefail
ko=$1 kver=$2
lic=$(modinfo -F license "$ko")
[ "$lic" = GPL ] || { echo "license is '$lic', want GPL"; exit 1; }
vm=$(modinfo -F vermagic "$ko")
[[ $vm == "$kver "* ]] || { echo "vermagic '$vm' is not for $kver"; exit 1; }
bad=$(nm -u "$ko" | awk '{print $2}' | grep -E '^(_Z|__cxa_|__gxx_|_Unwind_|__dso_handle|__cxa_atexit)' || true)
[ -z "$bad" ] || { echo "undefined C++ runtime symbols: $bad"; exit 1; }
if grep -qw 'w __cxa_pure_virtual' < <(nm "$ko"); then
	echo "__cxa_pure_virtual is only weakly referenced"
	exit 1
fi
# What a user reads with modinfo: a version, and each parameter's meaning
# with its default.
ver=$(modinfo -F version "$ko")
[ -n "$ver" ] || { echo "no version"; exit 1; }
undoc=$(modinfo -F parm "$ko" | grep -v '(default ' || true)
[ -z "$undoc" ] || { echo "parameters without a stated default: $undoc"; exit 1; }
nparm=$(modinfo -F parm "$ko" | wc -l)
echo "license GPL, version $ver, vermagic $vm, $nparm parameters each with its default, no undefined C++ runtime symbols"
