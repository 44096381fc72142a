/* sslat export-onnx: one architecture of a space as an ONNX model. */
#include <stdio.h>
#include <stdlib.h>

#include "base/limits.h"
#include "cli/cli.h"

static void export_onnx_usage(void)
{
    printf("usage: sslat export-onnx [SPACE] [--arch LIST] -o FILE.onnx [options]\n\n"
           "Writes one architecture of the space (the constant part and one candidate per\n"
           "NAS block) as an ONNX model: opset 17, fp32, the seeded weights the cpu and cuda\n"
           "calculators run, BatchNormalization unfused (docs/onnx.md). ONNX Runtime,\n"
           "trtexec and OpenVINO load it. The file is written atomically.\n\n" CLI_SPACE_HELP
           "  --arch LIST        one candidate index per NAS block (0,3,1,...); default: the\n"
           "                     space's \"arch\"\n"
           "  -o, --output FILE  the model\n"
           "  --seed S           seed of the weights (default: the calculators' seed)\n");
}

enum { OPT_ARCH = 2001, OPT_SEED };

typedef struct export_onnx_args {
    cli_space_args space;
    const char *arch_text, *output;
    int32_t seed;
} export_onnx_args;

static int export_onnx_option(int opt, const char *value, void *args)
{
    export_onnx_args *a = args;
    int code = CLI_OK;
    if (cli_space_option(opt, value, &a->space, &code)) return code;
    switch (opt) {
    case OPT_ARCH: return cli_set_once(&a->arch_text, value, "export-onnx", "--arch") ? CLI_OK : CLI_BAD_INPUT;
    case 'o': return cli_set_once(&a->output, value, "export-onnx", "-o") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_SEED: return cli_parse_int(value, "--seed", 1, INT32_MAX, &a->seed) ? CLI_OK : CLI_BAD_INPUT;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option EXPORT_ONNX_OPTIONS[] = {{"arch", required_argument, NULL, OPT_ARCH},
                                                    {"output", required_argument, NULL, 'o'},
                                                    {"seed", required_argument, NULL, OPT_SEED},
                                                    {"help", no_argument, NULL, 'h'},
                                                    CLI_SPACE_LONG_OPTIONS,
                                                    {NULL, 0, NULL, 0}};
static const cli_verb EXPORT_ONNX = {"export-onnx", "o:h", EXPORT_ONNX_OPTIONS, export_onnx_usage, export_onnx_option,
                                     0, 1, "at most one space file and -o FILE.onnx (sslat export-onnx --help)"};

int cmd_export_onnx(int argc, char **argv)
{
    export_onnx_args a = {0};
    int first, code = cli_parse(&EXPORT_ONNX, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    if (!a.output) return cli_expects(&EXPORT_ONNX);
    cli_space_args space_args = a.space;
    if (first < argc) space_args.path = argv[first];
    const char *arch_text = a.arch_text, *output = a.output;
    int32_t seed = a.seed;
    code = cli_check_paths("export-onnx", &space_args.path, 1, &output, 1);
    if (code != CLI_OK) return code;
    sslat_space *space = NULL;
    code = cli_load_space(&space_args, &space);
    if (code != CLI_OK) return code;
    static int32_t arch[SSLAT_MAX_LAYERS];
    int32_t blocks = sslat_space_block_count(space), length = 0;
    if (arch_text) {
        length = cli_parse_arch(arch_text, arch, SSLAT_MAX_LAYERS);
        if (length < 0) code = CLI_BAD_INPUT;
    } else if (blocks > 0) {
        length = sslat_space_arch(space, arch, SSLAT_MAX_LAYERS);
        if (length == 0) {
            fprintf(stderr, "sslat export-onnx: space '%s' has %d NAS blocks and no \"arch\": give --arch\n",
                    sslat_space_name(space), blocks);
            code = CLI_BAD_INPUT;
        }
    }
    if (code == CLI_OK) {
        sslat_onnx_options options = {(uint64_t)seed};
        sslat_error err;
        sslat_status status = sslat_space_export_onnx(space, arch, length, &options, output, &err);
        if (status != SSLAT_OK) fprintf(stderr, "sslat export-onnx: %s\n", err.message);
        else fprintf(stderr, "sslat export-onnx: wrote %s (space %s)\n", output, cli_text(sslat_space_name(space)));
        code = cli_exit_code(status);
    }
    sslat_space_free(space);
    return code;
}
