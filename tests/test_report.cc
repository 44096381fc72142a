// sslat_report_html: the page's sections from the C API, and its refusals.
// (The page rendered in a browser and printed to PDF: python/tests/test_report.py.)
#include <gtest/gtest.h>

#include <cstring>
#include <string>

extern "C" {
#include "base/text.h"
}
#include "helpers.h"

namespace {

struct Tables {
    sslat_space *space = nullptr;
    sslat_container *mac = nullptr, *thop = nullptr;
    Tables()
    {
        space = load_example("proxylessnas.json");
        sslat_error err;
        EXPECT_EQ(sslat_initialize_latency("mac", space, nullptr, nullptr, &mac, &err), SSLAT_OK) << err.message;
        mac = clone(mac);
        EXPECT_EQ(sslat_initialize_latency("mac_thop", space, nullptr, nullptr, &thop, &err), SSLAT_OK) << err.message;
        thop = clone(thop);
    }
    ~Tables()
    {
        sslat_container_free(mac);
        sslat_container_free(thop);
        sslat_space_free(space);
    }
    static sslat_container *clone(const sslat_container *owned_by_space)
    {
        sslat_container *copy = nullptr;
        EXPECT_EQ(sslat_container_clone(owned_by_space, &copy, nullptr), SSLAT_OK);
        return copy;
    }
};

size_t count(const std::string &text, const std::string &what)
{
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
    return n;
}

}  // namespace

TEST(Report, EverySectionFromTheCApi)
{
    Tables t;
    sslat_report_options options = SSLAT_REPORT_OPTIONS_INIT;
    options.table_name = "thop.sslat";
    options.space = t.space;
    options.mac = t.mac;
    options.validation_json = "{\"runtime\": \"a stopwatch\", \"architectures\": ["
                              "{\"label\": \"min\", \"predicted_ms\": 1.0, \"measured_ms\": 1.1},"
                              "{\"label\": \"random 1\", \"predicted_ms\": 2.0, \"measured_ms\": 1.9}]}";
    options.samples = 500;
    options.seed = 3;
    char *html = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_report_html(t.thop, &options, &html, &err), SSLAT_OK) << err.message;
    std::string page(html);
    sslat_free(html);
    for (const char *id : {"id=\"heatmap\"", "id=\"histogram\"", "id=\"mac-scatter\"", "id=\"pareto\"",
                           "id=\"validation-scatter\"", "id=\"pareto-points\"", "@media print"})
        EXPECT_NE(page.find(id), std::string::npos) << id;
    EXPECT_NE(page.find("a stopwatch"), std::string::npos);
    EXPECT_EQ(count(page, "class=\"point-label\""), 2u);
    // the front's table: as many rows as the front has points, at most 12
    sslat_pareto_front *front = nullptr;
    ASSERT_EQ(sslat_pareto_compute(t.thop, t.mac, 12, &front, nullptr), SSLAT_OK);
    EXPECT_EQ(count(page.substr(page.find("id=\"pareto-points\"")), "<tr><td>"), (size_t)sslat_pareto_size(front));
    sslat_pareto_free(front);
    // the same options, the same page: nothing in it depends on the clock or the machine
    ASSERT_EQ(sslat_report_html(t.thop, &options, &html, &err), SSLAT_OK);
    EXPECT_EQ(page, std::string(html));
    sslat_free(html);
}

TEST(Report, BadInputIsRefusedByName)
{
    Tables t;
    sslat_space *other = load_example("ofa_mobilenet_v3.json");
    sslat_container *other_mac = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_initialize_latency("mac", other, nullptr, nullptr, &other_mac, &err), SSLAT_OK);
    char *html = nullptr;
    sslat_report_options options = SSLAT_REPORT_OPTIONS_INIT;
    options.mac = other_mac;
    EXPECT_EQ(sslat_report_html(t.thop, &options, &html, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("MAC table"), std::string::npos) << err.message;
    options = SSLAT_REPORT_OPTIONS_INIT;
    options.value = other_mac;
    EXPECT_EQ(sslat_report_html(t.thop, &options, &html, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("value table"), std::string::npos) << err.message;
    options = SSLAT_REPORT_OPTIONS_INIT;
    options.space = other;
    EXPECT_NE(sslat_report_html(t.thop, &options, &html, &err), SSLAT_OK);
    options = SSLAT_REPORT_OPTIONS_INIT;
    int32_t arch[2] = {0, 0};
    options.arch = arch;
    options.arch_length = 2;
    EXPECT_EQ(sslat_report_html(t.thop, &options, &html, &err), SSLAT_ERR_INVALID_ARGUMENT);
    options = SSLAT_REPORT_OPTIONS_INIT;
    options.validation_json = "{\"architectures\": [{\"label\": \"x\", \"predicted_ms\": 1, \"measured_ms\": -1}]}";
    options.validation_name = "v.json";
    EXPECT_EQ(sslat_report_html(t.thop, &options, &html, &err), SSLAT_ERR_PARSE);
    EXPECT_NE(std::string(err.message).find("v.json: architectures[0].measured_ms"), std::string::npos) << err.message;
    options.validation_json = "{\"architectures\": [";
    EXPECT_EQ(sslat_report_html(t.thop, &options, &html, &err), SSLAT_ERR_PARSE);
    EXPECT_NE(std::string(err.message).find("v.json:1:"), std::string::npos) << err.message;
    EXPECT_EQ(html, nullptr);
    EXPECT_EQ(sslat_report_html(nullptr, nullptr, &html, &err), SSLAT_ERR_INVALID_ARGUMENT);
    options = SSLAT_REPORT_OPTIONS_INIT;
    options.size = 3;  // not this library's layout
    EXPECT_EQ(sslat_report_html(t.thop, &options, &html, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("sslat_report_options.size"), std::string::npos) << err.message;
    options = SSLAT_REPORT_OPTIONS_INIT;
    // a long label is cut at a whole character: the page stays UTF-8
    std::string label;
    for (int i = 0; i < 40; i++) label += "\xc3\xa9";  // é
    std::string validation = "{\"architectures\": [{\"label\": \"" + label +
                             "\", \"predicted_ms\": 1, \"measured_ms\": 1}]}";
    options.validation_json = validation.c_str();
    ASSERT_EQ(sslat_report_html(t.thop, &options, &html, &err), SSLAT_OK) << err.message;
    EXPECT_TRUE(sslat_utf8_valid(html, strlen(html)));
    EXPECT_NE(std::string(html).find("\xc3\xa9\xc3\xa9"), std::string::npos);
    sslat_free(html);
    // so is a runtime past its 512-byte buffer
    std::string runtime;
    for (int i = 0; i < 300; i++) runtime += "\xc3\xa9";
    validation = "{\"runtime\": \"" + runtime + "\", \"architectures\": [{\"label\": \"a\", \"predicted_ms\": 1, "
                 "\"measured_ms\": 1.1}]}";
    options.validation_json = validation.c_str();
    ASSERT_EQ(sslat_report_html(t.thop, &options, &html, &err), SSLAT_OK) << err.message;
    EXPECT_TRUE(sslat_utf8_valid(html, strlen(html)));
    sslat_free(html);
    sslat_space_free(other);
}
