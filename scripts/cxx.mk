# SPDX-License-Identifier: GPL-2.0
# Kbuild rule for freestanding C++ objects (core_cpp/**/*.cpp).
#
# The flags are the target kernel's own per-object C flags ($(_c_flags):
# KBUILD_CFLAGS plus KASAN/UBSAN/KCOV/KCSAN instrumentation when that kernel
# enables them) minus what is C-only, plus the C++ dialect. The kernel's
# include paths and -D__KERNEL__ are left out on purpose: core_cpp sees no
# kernel header.

# Kbuild runs make with -rR, so there is no $(CXX): derive it from $(CC)
# (gcc-12 -> g++-12, "ccache gcc" -> "ccache g++").
CXX := $(subst gcc,g++,$(CC))

cxx-drop-flags := -std=gnu11 -std=gnu89 -std=gnu99 -D__KERNEL__ \
	-Werror=strict-prototypes -Wstrict-prototypes \
	-Werror=implicit-function-declaration -Werror=implicit-int \
	-Werror=incompatible-pointer-types -Werror=designated-init \
	-Wno-pointer-sign -Wdeclaration-after-statement -Werror=declaration-after-statement \
	-Wmissing-prototypes -Wold-style-definition -Wnested-externs \
	-Wimplicit-fallthrough=5 -Wno-unused-but-set-variable

cxx-std-flags := -std=gnu++20 -ffreestanding -fno-exceptions -fno-rtti \
	-fno-threadsafe-statics -fcheck-new -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-fno-use-cxa-atexit -nostdinc -nostdinc++ -isystem $(shell $(CC) -print-file-name=include) \
	-Wno-missing-field-initializers -Wno-sign-compare -Werror

cxx_flags = -Wp,-MMD,$(depfile) $(filter-out $(cxx-drop-flags),$(_c_flags)) \
	$(cxx-std-flags) $(cxxflags-y) -DSCX_KERNEL=1

# The Debian kernel ignores .init_array (CONFIG_CONSTRUCTORS=n): an object that
# needs a C++ dynamic initialiser would silently run uninitialised, so refuse
# it. (KASAN kernels add constructors of their own, _sub_I_*, which they run.)
cmd_cxx_no_ctors = if $(NM) $@ | grep -q ' _GLOBAL__sub_I_'; then \
	echo "error: $@ needs global constructors; use constinit/constexpr" >&2; \
	rm -f $@; false; fi

quiet_cmd_cxx_o_cpp = CXX $(quiet_modtag) $@
      cmd_cxx_o_cpp = $(CXX) $(cxx_flags) -c -o $@ $< $(cmd_objtool)

define rule_cxx_o_cpp
	$(call cmd_and_fixdep,cxx_o_cpp)
	$(call cmd,cxx_no_ctors)
	$(call cmd,gen_objtooldep)
endef

$(obj)/%.o: $(src)/%.cpp FORCE
	$(call if_changed_rule,cxx_o_cpp)
