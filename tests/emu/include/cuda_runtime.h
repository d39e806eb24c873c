// The CPU emulation's cuda_runtime.h: the fake runtime API (cuda_runtime_api.h). The kernel
// language comes from tests/emu/emu_kernel.hpp, which emu.py force-includes into kernel sources.
#pragma once

#include "cuda_runtime_api.h"
