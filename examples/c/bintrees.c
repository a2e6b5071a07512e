/* Binary trees on four threads through flipgc's C API, with a graph check.
 *
 * Each thread keeps a long-lived tree (in a handle; thread 0's also in a global)
 * and builds and checks short-lived trees while collections run. A leaf holds
 * an immediate (a fixnum of its id) in its left field, so immediates cross
 * every collection too. The long-lived trees' node counts and id sums are
 * computed when built and again at the end; the heap is verified; the weak
 * handle to a dropped tree must read as cleared after a collection.
 *
 * Usage: bintrees [key=value ...]   (flipgc_config_set keys: flip=pte,
 * fault_mode=server, concurrent_compaction=false, inject=uffd-register, ...)
 * Prints one line "ok threads=4 nodes=N checksum=S" and exits 0, or says what
 * failed and exits 1. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flipgc.h"

#define THREADS 4
#define LONG_DEPTH 12
#define SHORT_DEPTH 8
#define ROUNDS 40

static flipgc_heap *heap;
static uint32_t NODE; /* fields: 0 left, 1 right (references), 2 id (a word) */

#define CHECK(call)                                                            \
  do {                                                                         \
    flipgc_status s_ = (call);                                                 \
    if (s_ != FLIPGC_OK) {                                                     \
      fprintf(stderr, "bintrees: %s failed (%d): %s\n", #call, (int)s_,        \
              flipgc_last_error());                                            \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static void fail(const char *what, unsigned long long a, unsigned long long b) {
  fprintf(stderr, "bintrees: %s: %llu != %llu\n", what, a, b);
  exit(1);
}

/* Pushes a tree of depth d; ids from *next. */
static void make(flipgc_mutator *m, int d, uint64_t *next) {
  CHECK(flipgc_alloc(m, NODE, 0));
  size_t self = flipgc_stack_len(m) - 1;
  uint64_t id = (*next)++;
  flipgc_write_word(m, self, 2, id);
  if (d == 0) {
    CHECK(flipgc_set_field_imm(m, self, 0, (id << 1) | 1));
    return;
  }
  for (size_t f = 0; f < 2; f++) {
    make(m, d - 1, next);
    flipgc_set_field(m, self, f, self + 1);
    flipgc_stack_truncate(m, self + 1);
  }
}

/* Adds the tree at stack slot `slot` to *count and *sum, checking each
 * leaf's immediate. */
static void walk(flipgc_mutator *m, size_t slot, uint64_t *count, uint64_t *sum) {
  uint64_t id = flipgc_read_word(m, slot, 2);
  *count += 1;
  *sum += id;
  flipgc_get_field(m, slot, 0);
  size_t left = flipgc_stack_len(m) - 1;
  uint64_t bits = 0;
  int kind = flipgc_stack_kind(m, left, &bits);
  flipgc_stack_truncate(m, left);
  if (kind == 2) {
    if (bits != ((id << 1) | 1)) fail("a leaf's immediate", bits, (id << 1) | 1);
    return;
  }
  if (kind != 1) fail("an inner node's left child kind", (unsigned)kind, 1);
  for (size_t f = 0; f < 2; f++) {
    flipgc_get_field(m, slot, f);
    walk(m, left, count, sum);
    flipgc_stack_truncate(m, left);
  }
}

static uint64_t nodes(int d) { return (2ull << d) - 1; }

static void nap(void *arg) { (void)arg; }

struct result {
  uint64_t count, sum;
};

static flipgc_global *global0;

static void *run(void *arg) {
  long t = (long)arg;
  flipgc_mutator *m;
  CHECK(flipgc_mutator_bind(heap, &m));
  uint64_t next = (uint64_t)t << 40;
  make(m, LONG_DEPTH, &next);
  flipgc_handle *kept = flipgc_handle_new(m, 0);
  if (t == 0) global0 = flipgc_global_new(m, 0);
  struct result *want = calloc(1, sizeof *want);
  walk(m, 0, &want->count, &want->sum);
  if (want->count != nodes(LONG_DEPTH)) fail("long-lived nodes", want->count, nodes(LONG_DEPTH));
  flipgc_stack_truncate(m, 0);

  /* A tree only a weak handle refers to: cleared by the next collection. */
  make(m, 3, &next);
  flipgc_weak *weak = flipgc_weak_new(m, 0);
  flipgc_stack_truncate(m, 0);

  for (int round = 0; round < ROUNDS; round++) {
    uint64_t first = next, count = 0, sum = 0;
    make(m, SHORT_DEPTH, &next);
    walk(m, 0, &count, &sum);
    uint64_t n = nodes(SHORT_DEPTH);
    if (count != n) fail("short-lived nodes", count, n);
    if (sum != n * first + n * (n - 1) / 2) fail("short-lived ids", sum, n * first + n * (n - 1) / 2);
    flipgc_stack_truncate(m, 0);
    if (round % 10 == 5) flipgc_collect(m);
    flipgc_blocking(m, nap, NULL);
    flipgc_safepoint(m);
  }
  flipgc_collect(m);
  if (flipgc_push_weak(m, weak)) fail("the weak handle to a dropped tree", 1, 0);
  flipgc_stack_truncate(m, 0);
  flipgc_weak_free(weak);

  struct result *got = calloc(1, sizeof *got);
  flipgc_push_handle(m, kept);
  walk(m, 0, &got->count, &got->sum);
  if (got->count != want->count) fail("long-lived nodes after collections", got->count, want->count);
  if (got->sum != want->sum) fail("long-lived id sum after collections", got->sum, want->sum);
  flipgc_stack_truncate(m, 0);
  flipgc_handle_free(kept);
  free(got);
  flipgc_mutator_free(m);
  return want;
}

int main(int argc, char **argv) {
  flipgc_config *cfg = flipgc_config_new(64u << 20);
  CHECK(flipgc_config_set(cfg, "verify_after_gc", "true"));
  for (int i = 1; i < argc; i++) {
    char key[64];
    const char *eq = strchr(argv[i], '=');
    if (!eq || (size_t)(eq - argv[i]) >= sizeof key) {
      fprintf(stderr, "bintrees: %s is not key=value\n", argv[i]);
      return 2;
    }
    memcpy(key, argv[i], eq - argv[i]);
    key[eq - argv[i]] = 0;
    CHECK(flipgc_config_set(cfg, key, eq + 1));
  }
  flipgc_types *types = flipgc_types_new();
  uint32_t refs[] = {0, 1};
  CHECK(flipgc_types_fixed(types, "node", 3, refs, 2, &NODE));
  CHECK(flipgc_heap_new(cfg, types, &heap));

  pthread_t th[THREADS];
  for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, run, (void *)t);
  uint64_t total = 0, checksum = 0;
  for (int t = 0; t < THREADS; t++) {
    struct result *r;
    pthread_join(th[t], (void **)&r);
    total += r->count;
    checksum += r->sum;
    free(r);
  }

  /* Thread 0's tree is still held by the global; check it from here. */
  flipgc_mutator *m;
  CHECK(flipgc_mutator_bind(heap, &m));
  flipgc_collect(m);
  flipgc_push_global(m, global0);
  uint64_t count = 0, sum = 0;
  walk(m, 0, &count, &sum);
  if (count != nodes(LONG_DEPTH)) fail("the global's tree", count, nodes(LONG_DEPTH));
  CHECK(flipgc_verify(m));
  flipgc_global_free(global0);
  flipgc_mutator_free(m);
  int concurrent = flipgc_heap_concurrent_compaction(heap);
  flipgc_heap_free(heap);
  printf("ok threads=%d nodes=%llu checksum=%llu concurrent_compaction=%d\n", THREADS,
         (unsigned long long)total, (unsigned long long)checksum, concurrent);
  return 0;
}
