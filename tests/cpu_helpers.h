// What the cpu backend's tests share: a skip, with oneDNN's own reason, where
// libdnnl cannot be loaded at run time.
#pragma once

#include <gtest/gtest.h>

extern "C" {
#include "host/dnnl_api.h"
}

#define SKIP_WITHOUT_DNNL()                                \
    do {                                                   \
        const char *dnnl_missing_ = host_dnnl_load();      \
        if (dnnl_missing_) GTEST_SKIP() << dnnl_missing_;  \
    } while (0)
