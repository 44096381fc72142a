#include "base/abi.h"

#include <string.h>

#include "base/error.h"

sslat_status sslat_check_struct_size(uint32_t size, size_t known, const char *name, sslat_error *err)
{
    if (size == known) return SSLAT_OK;
    if (size == 0)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "%s.size is 0: set it to sizeof(%s) (sslat.h's *_OPTIONS_INIT does), so a library of another "
                          "layout can tell; or pass NULL for every default", name, name);
    return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                      "%s.size is %u bytes; this library's %s has %zu (the caller was built against another "
                      "sslat.h, or size holds something else)", name, (unsigned)size, name, known);
}

size_t sslat_struct_size(const char *name)
{
    static const struct {
        const char *name;
        size_t size;
    } SIZES[] = {
        {"sslat_error", sizeof(sslat_error)},
        {"sslat_space_options", sizeof(sslat_space_options)},
        {"sslat_entry", sizeof(sslat_entry)},
        {"sslat_onnx_options", sizeof(sslat_onnx_options)},
        {"sslat_latency_options", sizeof(sslat_latency_options)},
        {"sslat_distribution_options", sizeof(sslat_distribution_options)},
        {"sslat_budget_result", sizeof(sslat_budget_result)},
        {"sslat_report_options", sizeof(sslat_report_options)},
        {"sslat_plot_options", sizeof(sslat_plot_options)},
        {"sslat_plot_reference", sizeof(sslat_plot_reference)},
    };
    for (size_t i = 0; name && i < sizeof SIZES / sizeof SIZES[0]; i++)
        if (!strcmp(SIZES[i].name, name)) return SIZES[i].size;
    return 0;
}
