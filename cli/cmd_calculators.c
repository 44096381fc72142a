#include <getopt.h>
#include <stdio.h>

#include "calc/calculator.h"
#include "cli/cli.h"

int cmd_calculators(int argc, char **argv)
{
    static const struct option LONG[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", LONG, NULL)) != -1) {
        if (opt == 'h') {
            printf("usage: sslat calculators\n\n"
                   "Lists every latency type with its kind, unit and whether it can run here.\n");
            return CLI_OK;
        }
        return CLI_BAD_INPUT;
    }
    if (optind < argc) {
        fprintf(stderr, "sslat calculators: unexpected argument '%s'\n", argv[optind]);
        return CLI_BAD_INPUT;
    }
    printf("%-13s %-9s %-5s %-10s %s\n", "name", "kind", "unit", "status", "what it gives");
    for (int i = 0; i < sslat_calculator_count(); i++) {
        const sslat_calculator *c = sslat_calculator_at(i);
        const char *why = sslat_calculator_unavailable(c);
        printf("%-13s %-9s %-5s %-10s %s\n", c->name, sslat_calc_kind_name(c->kind), sslat_calculator_unit(c),
               why ? "no" : "available", why ? why : c->summary);
    }
    return CLI_OK;
}
