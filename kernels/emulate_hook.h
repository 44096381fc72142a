/* Where an emulated launch goes (kernels/emulate.h): apart, so the stand-in
 * device of the tests (tests/standin/) sets it without taking in emulate.h's
 * redefinitions of the CUDA keywords. NULL runs a launch at once (the kernels'
 * host test); the stand-in queues it on its stream, or records it into a graph
 * while the stream captures, like any other work of that stream. */
#ifndef SSLAT_KERNELS_EMULATE_HOOK_H
#define SSLAT_KERNELS_EMULATE_HOOK_H

#ifndef __cplusplus
#error "kernels/emulate_hook.h is for host C++ builds"
#endif

#include <functional>

inline void (*sslat_emulated_submit)(void *stream, std::function<void()> run) = nullptr;

#endif
