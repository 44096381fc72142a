/* Safety limits: a hostile or mistaken search-space file fails with
 * SSLAT_ERR_LIMIT instead of exhausting memory or overflowing counts. */
#ifndef SSLAT_LIMITS_H
#define SSLAT_LIMITS_H

#define SSLAT_MAX_FILE_BYTES (16L * 1024 * 1024) /* a search-space file */
#define SSLAT_MAX_LAYERS 4096          /* layers after repeat expansion */
#define SSLAT_MAX_CANDIDATES 256       /* candidates of one NAS block */
#define SSLAT_MAX_REPEAT 256           /* "repeat" / rN */
#define SSLAT_MAX_SEQUENCE 64          /* elements of one sequence candidate */
#define SSLAT_MAX_TOTAL_CANDIDATES 65536 /* candidates of a whole space, after repeats */
#define SSLAT_MAX_GRAPH_NODES 4096     /* primitives in one subgraph */
#define SSLAT_MAX_TOTAL_NODES (1 << 20) /* primitives in a whole space */
#define SSLAT_MAX_CHANNELS (1 << 20)
#define SSLAT_MAX_SPATIAL 65536        /* H and W */
#define SSLAT_MAX_BATCH 65536
#define SSLAT_MAX_KERNEL 255
#define SSLAT_MAX_STRIDE 64
#define SSLAT_MAX_ELEMENTS (1LL << 40) /* elements of one tensor */
#define SSLAT_MAX_TOKEN 256            /* characters of one token */

#endif
