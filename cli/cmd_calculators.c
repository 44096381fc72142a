#include <stdio.h>

#include "calc/calculator.h"
#include "cli/cli.h"

static void calculators_usage(void)
{
    printf("usage: sslat calculators\n\n"
           "Lists every latency type with its kind, unit and whether it can run here.\n");
}

static int no_option(int opt, const char *value, void *args)
{
    (void)opt, (void)value, (void)args;
    return CLI_BAD_INPUT;
}

static const struct option CALCULATORS_OPTIONS[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
static const cli_verb CALCULATORS = {"calculators", "h", CALCULATORS_OPTIONS, calculators_usage, no_option, 0, 0, NULL};

int cmd_calculators(int argc, char **argv)
{
    int first, code = cli_parse(&CALCULATORS, argc, argv, NULL, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    printf("%-13s %-9s %-5s %-10s %s\n", "name", "kind", "unit", "status", "what it gives");
    for (int i = 0; i < sslat_calculator_count(); i++) {
        const sslat_calculator *c = sslat_calculator_at(i);
        const char *why = sslat_calculator_unavailable(c);
        printf("%-13s %-9s %-5s %-10s %s\n", c->name, sslat_calc_kind_name(c->kind), sslat_calculator_unit(c),
               why ? "no" : "available", why ? why : c->summary);
    }
    return CLI_OK;
}
