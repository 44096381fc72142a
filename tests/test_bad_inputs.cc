// Malformed and hostile search-space files: each gets one clear line naming
// where and what, the right status, and nothing half-loaded.
#include <gtest/gtest.h>

#include <string>

#include "helpers.h"

namespace {

struct BadInput {
    const char *what;
    std::string text;
    sslat_status status;
    const char *message;  // a part of the error message that must appear
};

std::string repeat_text(const std::string &piece, int times)
{
    std::string out;
    for (int i = 0; i < times; i++) out += piece;
    return out;
}

std::string many_repeated_layers()
{
    std::string layers = "\"cn_c8\"";
    for (int i = 0; i < 20; i++) layers += ", \"cn_c8_r256\"";
    return space_json(layers);
}

std::string too_many_candidates()
{
    std::string choice = "{\"choice\": [\"skip\"" + repeat_text(", \"skip\"", 255) + "], \"repeat\": 256}";
    return space_json("\"cn_c8\", " + choice + ", " + choice);
}

const std::string CHOICE_16 = "{\"choice\": [\"ir_k3_e3\", \"ir_k5_e3\"], \"c\": 16}";

std::vector<BadInput> bad_inputs()
{
    return {
        {"syntax error", "{\"sslat\": 1, \"layers\": [", SSLAT_ERR_PARSE, "test:1:"},
        {"syntax error on line 3", "{\n\"sslat\": 1,\n \"input\": {,}\n}", SSLAT_ERR_PARSE, "test:3:"},
        {"empty file", "", SSLAT_ERR_PARSE, "JSON syntax error"},
        {"top level not an object", "[1, 2]", SSLAT_ERR_PARSE, "top level must be an object"},
        {"missing version", "{\"input\": {\"shape\": [3, 8, 8]}, \"layers\": [\"gap\"]}", SSLAT_ERR_PARSE, "sslat"},
        {"wrong version", "{\"sslat\": 2, \"input\": {\"shape\": [3, 8, 8]}, \"layers\": [\"gap\"]}", SSLAT_ERR_PARSE, "format version 2"},
        {"unknown top-level key", space_json("\"gap\"", ", \"layer\": []"), SSLAT_ERR_PARSE, "unknown top-level key \"layer\""},
        {"duplicate key", space_json("\"gap\"", ", \"name\": \"a\", \"name\": \"b\""), SSLAT_ERR_PARSE, "duplicate"},
        {"missing input", "{\"sslat\": 1, \"layers\": [\"gap\"]}", SSLAT_ERR_PARSE, "input"},
        {"input shape of two dims", space_json("\"gap\"", "", "{\"shape\": [3, 8]}"), SSLAT_ERR_PARSE, "input.shape"},
        {"negative height", space_json("\"gap\"", "", "{\"shape\": [3, -1, 8]}"), SSLAT_ERR_SPACE, "input.shape[1]"},
        {"zero channels", space_json("\"gap\"", "", "{\"shape\": [0, 8, 8]}"), SSLAT_ERR_SPACE, "input.shape[0]"},
        {"huge width", space_json("\"gap\"", "", "{\"shape\": [3, 8, 100000000]}"), SSLAT_ERR_LIMIT, "input.shape[2]"},
        {"zero batch", space_json("\"gap\"", "", "{\"shape\": [3, 8, 8], \"batch\": 0}"), SSLAT_ERR_SPACE, "input.batch"},
        {"real-valued dimension", space_json("\"gap\"", "", "{\"shape\": [3, 8.5, 8]}"), SSLAT_ERR_PARSE, "must be an integer"},
        {"no layers", space_json(""), SSLAT_ERR_PARSE, "layers: must be a non-empty array"},
        {"unknown token", space_json("\"cn_c16\", \"xx_k3\""), SSLAT_ERR_SPACE, "layers[1]: unknown layer type 'xx'"},
        {"unknown option", space_json("\"ir_k3_z5\""), SSLAT_ERR_SPACE, "unknown option 'z5'"},
        {"option that does not apply", space_json("\"gap_k3\""), SSLAT_ERR_SPACE, "does not apply to 'gap'"},
        {"option given twice", space_json("\"ir_k3_k5\""), SSLAT_ERR_SPACE, "given twice"},
        {"zero kernel", space_json("\"cn_k0\""), SSLAT_ERR_SPACE, "outside"},
        {"negative stride in object", space_json("{\"op\": \"cn\", \"s\": -2}"), SSLAT_ERR_SPACE, "outside"},
        {"huge channels", space_json("\"cn_c2000000\""), SSLAT_ERR_SPACE, "outside 1..1048576"},
        {"layer of the wrong type", space_json("\"cn_c16\", 42"), SSLAT_ERR_PARSE, "layers[1]: expected a token string or a layer object, got an integer"},
        {"labels not one per candidate", space_json("{\"choice\": [\"ir_k3_e3\", \"skip\"], \"c\": 16, \"labels\": [\"a\"]}"), SSLAT_ERR_PARSE, "\"labels\" must be an array of 2 strings"},
        {"a label with a space", space_json("{\"choice\": [\"ir_k3_e3\", \"skip\"], \"c\": 16, \"labels\": [\"ir k3\", \"skip\"]}"), SSLAT_ERR_PARSE, "labels[0] 'ir k3': a label is letters"},
        {"an empty label", space_json("{\"choice\": [\"ir_k3_e3\", \"skip\"], \"c\": 16, \"labels\": [\"a\", \"\"]}"), SSLAT_ERR_PARSE, "labels[1] must be a string of 1 to 63"},
        {"a repeated label", space_json("{\"choice\": [\"ir_k3_e3\", \"skip\"], \"c\": 16, \"labels\": [\"x\", \"x\"]}"), SSLAT_ERR_SPACE, "labels[1] 'x' repeats labels[0]"},
        {"padding of a word other than same", space_json("{\"op\": \"conv\", \"p\": \"valid\"}"), SSLAT_ERR_PARSE, "\"p\" must be an integer or \"same\""},
        {"same padding of a pool", space_json("\"cn_c8\", \"maxpool_k3_s2_psame\""), SSLAT_ERR_SPACE, "'same' padding applies to convolutions, not to 'maxpool'"},
        {"object without op", space_json("{\"k\": 3}"), SSLAT_ERR_PARSE, "needs \"op\""},
        {"object with unknown key", space_json("{\"op\": \"ir\", \"kernel\": 3}"), SSLAT_ERR_PARSE, "unknown key \"kernel\""},
        {"option of the wrong type", space_json("{\"op\": \"ir\", \"k\": \"3\"}"), SSLAT_ERR_PARSE, "\"k\" must be an integer, got a string"},
        {"unknown activation name", space_json("{\"op\": \"ir\", \"act\": \"swishy\"}"), SSLAT_ERR_SPACE, "\"act\" must be one of"},
        {"empty choice", space_json("{\"choice\": []}"), SSLAT_ERR_SPACE, "at least one candidate"},
        {"choice not an array", space_json("{\"choice\": \"ir_k3\"}"), SSLAT_ERR_PARSE, "\"choice\" must be an array"},
        {"unknown key in choice", space_json("{\"choice\": [\"ir_k3\"], \"k\": 3}"), SSLAT_ERR_PARSE, "unknown key \"k\" in a choice"},
        {"mismatched candidate shapes", space_json("\"cn_c16\", {\"choice\": [\"ir_k3_c16\", \"ir_k3_c24\"]}"), SSLAT_ERR_SPACE, "layers[1]: candidates of block 0 give different shapes: choice[0] 'ir_k3_c16' gives 1x16x32x32, choice[1] 'ir_k3_c24' gives 1x24x32x32"},
        {"skip where shapes differ", space_json("\"cn_c16\", {\"choice\": [\"ir_k3_e3\", \"skip\"], \"c\": 24, \"s\": 2}"), SSLAT_ERR_SPACE, "layers[1].choice[1]: 'skip': skip where shapes differ"},
        {"candidate that repeats", space_json("{\"choice\": [\"ir_k3_r2\"]}"), SSLAT_ERR_SPACE, "cannot repeat"},
        {"nested sequence", space_json("{\"choice\": [[[\"ir_k3\"]]]}"), SSLAT_ERR_PARSE, "layers[0].choice[0][0]: nested sequences"},
        {"sequence at the top level", space_json("[\"ir_k3\", \"ir_k5\"]"), SSLAT_ERR_PARSE, "sequences"},
        {"kernel larger than the input", space_json("\"cn_k7_p0\"", "", "{\"shape\": [3, 4, 4]}"), SSLAT_ERR_SPACE, "does not fit input 4x4"},
        {"groups that do not divide", space_json("\"cn_c10_g3\""), SSLAT_ERR_SPACE, "groups 3 must divide"},
        {"fc without size", space_json("{\"op\": \"fc\"}"), SSLAT_ERR_SPACE, "fc needs an output size"},
        {"arch of wrong length", space_json("\"cn_c16\", " + CHOICE_16, ", \"arch\": [0, 1]"), SSLAT_ERR_SPACE, "arch: has 2 entries but the space has 1 NAS blocks"},
        {"arch out of range", space_json("\"cn_c16\", " + CHOICE_16, ", \"arch\": [2]"), SSLAT_ERR_SPACE, "arch[0]: candidate 2 is out of range"},
        {"arch negative", space_json("\"cn_c16\", " + CHOICE_16, ", \"arch\": [-1]"), SSLAT_ERR_SPACE, "out of range"},
        {"arch not integers", space_json("\"cn_c16\", " + CHOICE_16, ", \"arch\": [\"0\"]"), SSLAT_ERR_PARSE, "arch[0]: must be an integer"},
        {"repeat too large", space_json("{\"choice\": [\"cn\"], \"repeat\": 100000}"), SSLAT_ERR_SPACE, "outside 1..256"},
        {"too many candidates after repeats", too_many_candidates(), SSLAT_ERR_LIMIT, "layers[1]: the space has more than 65536 candidates"},
        {"too many layers after repeats", many_repeated_layers(), SSLAT_ERR_LIMIT, "layers after repeats"},
        {"input over 2^40 elements", space_json("\"gap\"", "", "{\"shape\": [3, 65536, 65536], \"batch\": 65536}"), SSLAT_ERR_LIMIT, "input: the input has more than 2^40"},
        {"tensor over 2^40 elements", space_json("\"cn_c1048576\"", "", "{\"shape\": [3, 65536, 65536]}"), SSLAT_ERR_LIMIT, "layers[0]: 'cn_c1048576': conv2d 'conv': output 1x1048576x65536x65536 has more than 2^40"},
        {"deep nesting", repeat_text("[", 100000), SSLAT_ERR_PARSE, "JSON syntax error"},
        {"deeply nested layer object", space_json(repeat_text("{\"op\": ", 3000) + "\"ir\"" + repeat_text("}", 3000)), SSLAT_ERR_PARSE, "JSON syntax error"},
        {"bad se_gate", space_json("\"gap\"", ", \"se_gate\": \"relu\""), SSLAT_ERR_PARSE, "se_gate"},
        {"bad se_act", space_json("\"gap\"", ", \"se_act\": \"swish\""), SSLAT_ERR_PARSE, "se_act: must be an activation"},
        {"bad se_base", space_json("\"gap\"", ", \"se_base\": \"output\""), SSLAT_ERR_PARSE, "se_base: must be \"expanded\" or \"input\""},
        {"se_divisor zero", space_json("\"gap\"", ", \"se_divisor\": 0"), SSLAT_ERR_PARSE, "se_divisor: must be an integer in 1..64"},
        {"a pool written two ways", space_json("\"gap_fn_mean\""), SSLAT_ERR_SPACE, "'fn' or 'mean', not both"},
        {"ShuffleNetV2 unit changing width at stride 1", space_json("\"cn_c16\", \"sv2_s1_c24\""), SSLAT_ERR_SPACE, "needs an even output width equal to its input at stride 1: 16 channels in, 24 out"},
        {"ShuffleNetV2 unit of odd width", space_json("\"cn_c16\", \"sv2_s2_c25\""), SSLAT_ERR_SPACE, "needs an even output width: 16 channels in, 25 out, stride 2"},
        {"Focus of an odd height", space_json("\"focus_c16\"", "", "{\"shape\": [3, 9, 10]}"), SSLAT_ERR_SPACE, "space_to_depth 'focus_slices': needs an even height and width"},
        {"upsample past the limit", space_json("\"upsample_s64\", \"upsample_s64\"", "", "{\"shape\": [3, 32, 32]}"), SSLAT_ERR_SPACE, "upsample 'upsample': scale 64 of 2048x2048 is outside 1..64 or over 65536 pixels a side"},
        {"mean on a max pool", space_json("\"maxpool_mean\""), SSLAT_ERR_SPACE, "option 'mean' does not apply to 'maxpool'"},
        // graphs: `from`, concat, detect and the YOLOv5 composites
        {"from pointing forward", space_json("\"cn_c8\", {\"op\": \"concat\", \"from\": [-1, 3]}, \"cn_c8\""), SSLAT_ERR_SPACE, "layers[1].from: from 3 points forward"},
        {"from to itself", space_json("\"cn_c8\", {\"op\": \"concat\", \"from\": [0, 1]}"), SSLAT_ERR_SPACE, "from 1 is the layer itself"},
        {"from before the first layer", space_json("\"cn_c8\", {\"op\": \"concat\", \"from\": [-1, -3]}"), SSLAT_ERR_SPACE, "from -3 reaches before the first layer"},
        {"from naming no earlier layer", space_json("\"cn_c8\", {\"op\": \"concat\", \"from\": [-1, \"p4\"]}"), SSLAT_ERR_SPACE, "from 'p4': no earlier layer has that name"},
        {"from with 33 sources", space_json("\"cn_c8\", {\"op\": \"concat\", \"from\": [" + repeat_text("0, ", 32) + "0]}"), SSLAT_ERR_SPACE, "layers[1].from: 33 sources; a layer reads 1..32"},
        {"from of the wrong type", space_json("\"cn_c8\", {\"op\": \"concat\", \"from\": [-1, 0.5]}"), SSLAT_ERR_PARSE, "from: an entry is a layer index or name"},
        {"from on a candidate", space_json("\"cn_c8\", {\"choice\": [{\"op\": \"cn\", \"from\": -1}]}"), SSLAT_ERR_PARSE, "\"from\" belongs on the layer, its choice or an element"},
        {"element from pointing forward", space_json("\"cn_c8\", {\"choice\": [[\"cn\", {\"op\": \"add\", \"from\": [0, 2]}]]}"), SSLAT_ERR_SPACE, "choice[0][1].from: from 2: element 1 reads earlier elements of its candidate only"},
        {"element from of a name", space_json("\"cn_c8\", {\"choice\": [[\"cn\", {\"op\": \"add\", \"from\": [0, \"p3\"]}]]}"), SSLAT_ERR_PARSE, "inside a candidate an entry is an element index or \"input\""},
        {"add of one source", space_json("\"cn_c8\", {\"choice\": [[\"cn\", {\"op\": \"add\", \"from\": 0}]]}"), SSLAT_ERR_SPACE, "add reads two sources, \"from\" gives 1"},
        {"add of different shapes", space_json("\"cn_c8\", {\"choice\": [[\"cn_c16\", {\"op\": \"add\", \"from\": [0, \"input\"]}]]}"), SSLAT_ERR_SPACE, "add 'add'"},
        {"slice past the channels", space_json("\"cn_c8\", \"slice_o4_c8\""), SSLAT_ERR_SPACE, "channel_slice 'slice'"},
        {"sequence that is not an array", space_json("\"cn_c8\", {\"sequence\": \"bn\"}"), SSLAT_ERR_PARSE, "\"sequence\" must be an array of layers"},
        {"unknown key in a sequence", space_json("\"cn_c8\", {\"sequence\": [\"bn\"], \"repeat\": 2}"), SSLAT_ERR_PARSE, "unknown key \"repeat\" in a sequence"},
        {"bare array as a layer", space_json("\"cn_c8\", [\"bn\", \"relu\"]"), SSLAT_ERR_PARSE, "bare arrays (sequences) belong inside \"choice\" or \"sequence\""},
        {"slice without a width", space_json("\"cn_c8\", \"slice_o4\""), SSLAT_ERR_SPACE, "slice needs its channel count (c) and offset (o)"},
        {"two sources into a one-input layer", space_json("\"cn_c8\", {\"op\": \"cn\", \"from\": [-1, 0]}"), SSLAT_ERR_SPACE, "'cn' reads one input but \"from\" gives 2"},
        {"concat after another layer in a candidate", space_json("\"cn_c8\", {\"choice\": [[\"cn\", \"concat\"]], \"from\": [-1, 0]}"), SSLAT_ERR_SPACE, "'concat' reads the layer's sources: it must come first"},
        {"concat of one source", space_json("\"cn_c8\", \"concat\""), SSLAT_ERR_SPACE, "concat joins 2..32 sources"},
        {"concat of different spatial sizes", space_json("\"cn_c8\", \"cn_s2_c8\", {\"op\": \"concat\", \"from\": [-1, 0]}"), SSLAT_ERR_SPACE, "layers[2]: 'concat': concat 'cat': input 1 is 1x8x32x32, input 0 1x8x16x16: only the channels may differ"},
        {"a candidate its consumer cannot take", space_json("\"cn_c8\", {\"choice\": [\"cn_c8\", \"cn_s2_c8\"]}, {\"op\": \"concat\", \"from\": [-1, 0]}"), SSLAT_ERR_SPACE, "candidates of block 0 give different shapes"},
        {"repeat on a concat", space_json("\"cn_c8\", {\"op\": \"concat\", \"repeat\": 2, \"from\": [-1, 0]}"), SSLAT_ERR_SPACE, "option 'r' does not apply to 'concat'"},
        {"detect on five sources", space_json("\"cn_c8\", {\"op\": \"detect\", \"from\": [0, 0, 0, 0, 0]}"), SSLAT_ERR_SPACE, "reads at most 4 sources but \"from\" gives 5"},
        {"detect of too many channels", space_json("\"cn_c8\", {\"op\": \"detect\", \"c\": 1000000, \"a\": 9, \"from\": [-1]}"), SSLAT_ERR_LIMIT, "detect: 9 anchors × (1000000 classes + 5)"},
        {"c3 with zero blocks", space_json("\"c3_b0_c16\""), SSLAT_ERR_SPACE, "option 'b' is 0, outside 1..64"},
        {"anchors on a conv", space_json("\"cn_a3\""), SSLAT_ERR_SPACE, "option 'a' does not apply to 'cn'"},
        // transformers: each names the layer
        {"heads that do not divide the width", space_json("\"patch_k4_c24\", \"vit_h5\""), SSLAT_ERR_SPACE, "layers[1]: 'vit_h5': 5 heads do not divide the width 24"},
        {"heads that do not divide, in a candidate", space_json("\"patch_k4_c24\", {\"choice\": [\"vit_h2\", \"attn_h5\"]}"), SSLAT_ERR_SPACE, "layers[1].choice[1]: 'attn_h5': 5 heads do not divide the width 24"},
        {"a token op on an image", space_json("\"cn_c8\", \"cls\""), SSLAT_ERR_SPACE, "layers[1]: 'cls': class_token 'cls_token': needs tokens N×L×C, got an image 1x8x32x32"},
        {"a transformer block on an image", space_json("\"vit_h2\""), SSLAT_ERR_SPACE, "layers[0]: 'vit_h2': 'vit' needs tokens N×L×C, got an image 1x3x32x32"},
        {"attention on an image", space_json("\"cn_c8\", \"attn_h2\""), SSLAT_ERR_SPACE, "layers[1]: 'attn_h2': 'attn' needs tokens N×L×C, got an image"},
        {"tokens back to an image of the wrong width", space_json("\"cn_c8\", \"tokens\", \"image_w5\""), SSLAT_ERR_SPACE, "layers[2]: 'image_w5': 1024 tokens are no image 5 pixels wide (w must divide the count)"},
        {"tokens that are no square as an image", space_json("\"cn_c8\", \"s2d\", \"tokens\", \"cls\", \"image\""), SSLAT_ERR_SPACE, "layers[4]: 'image': 257 tokens are no square image (give its width w)"},
        {"an image back to an image", space_json("\"cn_c8\", \"image\""), SSLAT_ERR_SPACE, "layers[1]: 'image': image needs tokens N×L×C, got an image 1x8x32x32"},
        {"a ConvNeXt block on tokens", space_json("\"patch_k4_c8\", \"cnx\""), SSLAT_ERR_SPACE, "layers[1]: 'cnx': cnx needs an image N×C×H×W, got tokens 1x64x8"},
        {"a LayerNorm epsilon out of range", space_json("\"tokens\", \"ln_eps2\""), SSLAT_ERR_SPACE, "LayerNorm epsilon 2 is outside (0, 1)"},
        {"a LayerNorm epsilon that is no number", space_json("\"tokens\", {\"op\": \"ln\", \"eps\": \"small\"}"), SSLAT_ERR_PARSE, "layers[1]: \"eps\" must be a number, got a string"},
        {"a linear without bias given a value", space_json("{\"op\": \"fc\", \"c\": 4, \"nobias\": 3}"), SSLAT_ERR_PARSE, "layers[0]: \"nobias\" must be true or false, got an integer"},
        {"a layer scale flag with a value", space_json("{\"op\": \"scale\", \"method\": 2}"), SSLAT_ERR_PARSE, "layers[0]: \"method\" must be true or false, got an integer"},
        {"an image op on tokens", space_json("\"patch_k4_c24\", \"cn_c8\""), SSLAT_ERR_SPACE, "layers[1]: 'cn_c8': conv2d 'conv': needs an image N×C×H×W, got tokens N×L×C 1x64x24"},
        {"a concat of tokens", space_json("\"patch_k4_c24\", \"tokpool\", \"fc8\", {\"op\": \"concat\", \"from\": [-1, 0]}"), SSLAT_ERR_SPACE, "concat 'cat': input 1 is tokens N×L×C"},
        {"a block without heads", space_json("\"patch_k4_c24\", \"vit_e4\""), SSLAT_ERR_SPACE, "'vit_e4': 'vit' needs its number of heads (h)"},
        {"heads that are not a number", space_json("\"patch_k4_c24\", {\"op\": \"vit\", \"h\": \"two\"}"), SSLAT_ERR_PARSE, "layers[1]: \"h\" must be an integer, got a string"},
        {"an MLP ratio that is not a number", space_json("\"patch_k4_c24\", {\"op\": \"vit\", \"h\": 2, \"e\": \"x\"}"), SSLAT_ERR_PARSE, "layers[1]: \"e\" must be a number, got a string"},
        {"a head width of zero", space_json("\"patch_k4_c24\", \"vit_h2_hd0\""), SSLAT_ERR_SPACE, "option 'hd' is 0, outside 1..65536"},
        {"a patch without its size", space_json("\"patch_c24\""), SSLAT_ERR_SPACE, "layers[0]: 'patch_c24': patch needs its patch size (k) and width (c)"},
        {"an attention bias on tokens of no square grid", space_json("\"patch_k4_c24\", \"cls\", \"attn_h2_posbias\""), SSLAT_ERR_SPACE, "layers[2]: 'attn_h2_posbias': attention 'attn': an attention bias needs the tokens of a square grid (L = R·R), got 65 tokens"},
        {"an attention bias flag with a value", space_json("\"patch_k4_c24\", {\"op\": \"attn\", \"h\": 2, \"posbias\": 1}"), SSLAT_ERR_PARSE, "layers[1]: \"posbias\" must be true or false, got an integer"},
        {"an attention bias on a convolution", space_json("\"cn_c8_posbias\""), SSLAT_ERR_SPACE, "layers[0]: option 'posbias' does not apply to 'cn' in 'cn_c8_posbias'"},
        {"q|k|v too wide", space_json("\"patch_k4_c24\", \"attn_h1000_hd1000\""), SSLAT_ERR_LIMIT, "q|k|v of 1000 heads × 1000 channels exceed"},
        {"a slope that is not a number", space_json("\"cn_c8\", {\"op\": \"leaky\", \"slope\": \"x\"}"), SSLAT_ERR_PARSE, "layers[1]: \"slope\" must be a number, got a string"},
        {"a slope out of range", space_json("\"cn_c8\", \"leaky_slope1e9\""), SSLAT_ERR_SPACE, "slope 1e+09 is outside -1e6..1e6"},
        {"NUL inside a string", std::string("{\"sslat\": 1, \"name\": \"a\\u0000b\"}"), SSLAT_ERR_PARSE, "JSON syntax error"},
    };
}

TEST(BadInputs, EachGetsOneClearLineAndNothingLoaded)
{
    std::vector<BadInput> cases = bad_inputs();
    EXPECT_GE(cases.size(), 25u);
    for (const BadInput &c : cases) {
        sslat_space *space = reinterpret_cast<sslat_space *>(0x1);
        sslat_error err;
        sslat_status status =
            sslat_space_load_string(c.text.data(), c.text.size(), "test", nullptr, &space, &err);
        EXPECT_EQ(status, c.status) << c.what << ": " << err.message;
        EXPECT_EQ(err.status, status) << c.what;
        EXPECT_EQ(space, nullptr) << c.what;
        std::string message = err.message;
        EXPECT_NE(message.find(c.message), std::string::npos)
            << c.what << ": expected '" << c.message << "' in: " << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << c.what << ": " << message;
        EXPECT_EQ(message.rfind("test", 0), 0u) << c.what << ": names the source: " << message;
    }
}

TEST(BadInputs, BadOverridesAreRejected)
{
    std::string text = space_json("\"gap\"");
    sslat_space_options options = {100000, 0, 0};
    sslat_space *space = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_space_load_string(text.data(), text.size(), "test", &options, &space, &err),
              SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(space, nullptr);
    options = {1, 2, 2};  // a 3x3 conv with padding 1 still fits 2x2; a 7x7 without padding does not
    text = space_json("\"cn_k7_p0\"");
    EXPECT_EQ(sslat_space_load_string(text.data(), text.size(), "test", &options, &space, &err),
              SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("does not fit"), std::string::npos) << err.message;
}

}  // namespace
