/* Every safety limit of sslat, in one place: a hostile or mistaken input fails
 * with SSLAT_ERR_LIMIT (or a clear usage error) instead of exhausting memory,
 * overflowing counts or running without end. */
#ifndef SSLAT_LIMITS_H
#define SSLAT_LIMITS_H

/* ---- search-space files and the IR ---- */
#define SSLAT_MAX_FILE_BYTES (16L * 1024 * 1024) /* a search-space file */
#define SSLAT_MAX_LAYERS 4096          /* layers after repeat expansion */
#define SSLAT_MAX_CANDIDATES 256       /* candidates of one NAS block */
#define SSLAT_MAX_REPEAT 256           /* "repeat" / rN */
#define SSLAT_MAX_SEQUENCE 256         /* elements of one sequence candidate (a module traced to primitives) */
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

/* ---- containers and the files they are read from ---- */
#define SSLAT_MAX_CONTAINER_BYTES (256L * 1024 * 1024) /* a binary or JSON container */
#define SSLAT_MAX_META 1024            /* metadata pairs of one container */
#define SSLAT_MAX_STRING 65536         /* bytes of one metadata key, value or label */
#define SSLAT_MAX_DIMENSION (1 << 20)  /* one recorded input dimension */
#define SSLAT_MAX_PICKLE_BYTES (64 << 20) /* an ENOT latency pickle */
#define SSLAT_MAX_PICKLE_STACK (1 << 16)  /* the pickle machine's stack */
#define SSLAT_MAX_PICKLE_MEMO (1 << 20)   /* … its memo */
#define SSLAT_MAX_PICKLE_STRING (1 << 20) /* … one string in it */
#define SSLAT_MAX_SHARDS (1 << 20)     /* parts of a sharded run */

/* ---- measurement ---- */
#define SSLAT_MAX_SAMPLES 10000        /* timed samples of one unit (a group shares a tenth each) */
#define SSLAT_MAX_CPU_REPLICAS 64      /* copies of one subgraph in a cpu timing program */
#define SSLAT_CUDA_MAX_COPIES 1024     /* copies of one subgraph in a cuda replay */
#define SSLAT_MAX_THREADS 4096         /* --threads */
#define SSLAT_MAX_DEVICE_INDEX 1024    /* --device */

/* ---- statistics and reports ---- */
#define SSLAT_MAX_BINS (1 << 22)       /* grid of the exact distribution */
#define SSLAT_MAX_DISTRIBUTION_WORK 4e9 /* bins × candidates of one distribution */
#define SSLAT_MAX_KNAPSACK_BYTES (64.0 * 1024 * 1024) /* the budget search's table */
#define SSLAT_MAX_BUDGET_TOP 1000     /* budget --top K */
#define SSLAT_MIN_BUDGET_COLUMNS 256  /* the coarsest budget grid answered (fewer: refused) */
#define SSLAT_MAX_PARETO_KEPT (8L << 20) /* front points kept for backtracking, all blocks */
#define SSLAT_MAX_PARETO_WORK (4L << 20) /* points combined for one block's front */
#define SSLAT_MAX_PARETO_TOTAL (96L << 20) /* points combined over all blocks: seconds, not minutes */
#define SSLAT_MIN_PARETO_KEPT 4096     /* points a thinned block's front keeps at least */
#define SSLAT_MAX_VALIDATION_ROWS 100000 /* architectures in a validation file */
#define SSLAT_MAX_SWEEP_VALUES 32      /* values of one sweep axis */

#endif
