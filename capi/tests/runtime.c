/* Types registered on a live heap while other threads allocate and collect,
 * ephemerons, and pinned objects, through the C API, on the path the arguments
 * configure (flipgc_config_set key=value pairs), with the heap verified.
 *
 * - Two worker threads each keep a list of nodes, churn garbage, collect, and
 *   check their list's checksum after every collection, while the main thread
 *   registers 40 fixed types (and an array type) on the heap and allocates an
 *   object of each, then checks every object's type and words after
 *   collections.
 * - Ephemerons (one type registered before the heap, one on it): each value
 *   refers to its key; after a collection the entries whose keys are kept hold
 *   both, and the others read null in both fields (freed).
 * - A pinned byte array written through its payload pointer keeps that address
 *   and its bytes across collections. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "flipgc.h"

#define CHECK(c)                                      \
  if (!(c)) {                                         \
    fprintf(stderr, "runtime.c: failed: %s\n", #c);   \
    return 1;                                         \
  }

enum { LIST = 2000, NTYPES = 40, NEPH = 4000 };
static flipgc_heap *heap;
static uint32_t node, eph_before;
static atomic_int done;

static uint64_t list_sum(flipgc_mutator *m) {
  uint64_t h = 0;
  flipgc_stack_dup(m, 0); /* 1: cursor */
  while (flipgc_stack_kind(m, 1, NULL) == 1) {
    h = h * 31 + flipgc_read_word(m, 1, 1);
    flipgc_get_field(m, 1, 0);
    flipgc_stack_set(m, 1, 2);
    flipgc_stack_truncate(m, 2);
  }
  flipgc_stack_truncate(m, 1);
  return h;
}

static void *worker(void *arg) {
  uintptr_t id = (uintptr_t)arg;
  flipgc_mutator *m;
  if (flipgc_mutator_bind(heap, &m) != FLIPGC_OK) return (void *)1;
  flipgc_push_null(m); /* 0: the list */
  for (size_t i = 0; i < LIST; i++) {
    if (flipgc_alloc(m, node, 0) != FLIPGC_OK) return (void *)1;
    flipgc_write_word(m, 1, 1, id * 100000 + i);
    flipgc_set_field(m, 1, 0, 0);
    flipgc_stack_set(m, 0, 1);
    flipgc_stack_truncate(m, 1);
  }
  uint64_t sum = list_sum(m);
  for (int round = 0; !atomic_load(&done) || round < 5; round++) {
    for (int k = 0; k < 5000; k++) {
      if (flipgc_alloc(m, node, 0) != FLIPGC_OK) return (void *)1;
      flipgc_stack_truncate(m, 1);
    }
    if (round % 2 == 0) flipgc_collect(m);
    if (list_sum(m) != sum) return (void *)2;
  }
  flipgc_mutator_free(m);
  return NULL;
}

struct join {
  pthread_t *t;
  int rc[2];
  void *ret[2];
};

static void join_workers(void *arg) {
  struct join *j = arg;
  for (int i = 0; i < 2; i++) j->rc[i] = pthread_join(j->t[i], &j->ret[i]);
}

/* Ephemerons of type `eph`: NEPH entries in a reference array (pushed at the
 * stack's top, slot `base`), each value a node whose field 0 is its key; the
 * keys of even entries are also kept in a second array (slot `base + 1`). */
static int ephemerons(flipgc_mutator *m, uint32_t eph, uint32_t refs) {
  size_t base = flipgc_stack_len(m);
  CHECK(flipgc_alloc(m, refs, NEPH) == FLIPGC_OK);     /* base: the entries */
  CHECK(flipgc_alloc(m, refs, NEPH / 2) == FLIPGC_OK); /* base + 1: kept keys */
  for (size_t i = 0; i < NEPH; i++) {
    CHECK(flipgc_alloc(m, eph, 0) == FLIPGC_OK);  /* base + 2 */
    CHECK(flipgc_alloc(m, node, 0) == FLIPGC_OK); /* base + 3: key */
    CHECK(flipgc_alloc(m, node, 0) == FLIPGC_OK); /* base + 4: value */
    flipgc_write_word(m, base + 3, 1, i);
    flipgc_set_field(m, base + 4, 0, base + 3); /* the value refers to its key */
    flipgc_set_field(m, base + 2, 0, base + 3);
    flipgc_set_field(m, base + 2, 1, base + 4);
    flipgc_set_field(m, base, i, base + 2);
    if (i % 2 == 0) flipgc_set_field(m, base + 1, i / 2, base + 3);
    flipgc_stack_truncate(m, base + 2);
  }
  flipgc_collect(m);
  flipgc_collect(m);
  size_t kept = 0, cleared = 0;
  for (size_t i = 0; i < NEPH; i++) {
    flipgc_get_field(m, base, i); /* base + 2 */
    flipgc_get_field(m, base + 2, 0); /* base + 3: key */
    flipgc_get_field(m, base + 2, 1); /* base + 4: value */
    int key = flipgc_stack_kind(m, base + 3, NULL), value = flipgc_stack_kind(m, base + 4, NULL);
    if (i % 2 == 0) {
      CHECK(key == 1 && value == 1 && flipgc_read_word(m, base + 3, 1) == i);
      flipgc_get_field(m, base + 4, 0); /* base + 5 */
      CHECK(flipgc_stack_same(m, base + 5, base + 3));
      kept++;
    } else {
      CHECK(key == 0 && value == 0);
      cleared++;
    }
    flipgc_stack_truncate(m, base + 2);
  }
  CHECK(kept == NEPH / 2 && cleared == NEPH / 2);
  flipgc_stack_truncate(m, base);
  return 0;
}

int main(int argc, char **argv) {
  flipgc_config *cfg = flipgc_config_new(64u << 20);
  flipgc_config_set(cfg, "verify_after_gc", "true");
  for (int i = 1; i < argc; i++) {
    char key[64];
    const char *eq = strchr(argv[i], '=');
    CHECK(eq && (size_t)(eq - argv[i]) < sizeof key);
    memcpy(key, argv[i], eq - argv[i]);
    key[eq - argv[i]] = 0;
    CHECK(flipgc_config_set(cfg, key, eq + 1) == FLIPGC_OK);
  }
  flipgc_types *types = flipgc_types_new();
  uint32_t ref0[] = {0};
  CHECK(flipgc_types_fixed(types, "node", 2, ref0, 1, &node) == FLIPGC_OK);
  CHECK(flipgc_types_ephemeron(types, "eph", &eph_before) == FLIPGC_OK);
  CHECK(flipgc_heap_new(cfg, types, &heap) == FLIPGC_OK);
  flipgc_mutator *m;
  CHECK(flipgc_mutator_bind(heap, &m) == FLIPGC_OK);
  pthread_t t[2];
  for (uintptr_t i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);

  /* Types registered while the workers run, one object of each. */
  uint32_t arr, ids[NTYPES];
  CHECK(flipgc_heap_register_ref_array(heap, "objects", &arr) == FLIPGC_OK);
  CHECK(flipgc_alloc(m, arr, NTYPES) == FLIPGC_OK); /* 0 */
  for (uint32_t k = 0; k < NTYPES; k++) {
    char name[32];
    snprintf(name, sizeof name, "late%u", k);
    CHECK(flipgc_heap_register_fixed(heap, name, 2 + k % 5, ref0, 1, &ids[k]) == FLIPGC_OK);
    CHECK(flipgc_alloc(m, ids[k], 0) == FLIPGC_OK); /* 1 */
    for (uint32_t f = 1; f < 2 + k % 5; f++) flipgc_write_word(m, 1, f, k * 10 + f);
    flipgc_set_field(m, 1, 0, 0); /* a reference back to the array */
    flipgc_set_field(m, 0, k, 1);
    flipgc_stack_truncate(m, 1);
    if (k % 8 == 0) flipgc_collect(m);
  }
  /* A bad definition and a duplicate name are errors, not aborts. */
  uint32_t bad[] = {9}, dummy;
  CHECK(flipgc_heap_register_fixed(heap, "bad", 2, bad, 1, &dummy) == FLIPGC_TYPE_ERROR);
  atomic_store(&done, 1);
  /* Joined counted as stopped: a worker's collection must not wait for this
   * thread while it waits for the worker. */
  struct join j = {t, {0, 0}, {NULL, NULL}};
  flipgc_blocking(m, join_workers, &j);
  for (int i = 0; i < 2; i++) CHECK(j.rc[i] == 0 && j.ret[i] == NULL);
  flipgc_collect(m);
  for (uint32_t k = 0; k < NTYPES; k++) {
    flipgc_get_field(m, 0, k); /* 1 */
    CHECK(flipgc_type_of(m, 1) == ids[k]);
    for (uint32_t f = 1; f < 2 + k % 5; f++) CHECK(flipgc_read_word(m, 1, f) == k * 10 + f);
    flipgc_get_field(m, 1, 0); /* 2 */
    CHECK(flipgc_stack_same(m, 2, 0));
    flipgc_stack_truncate(m, 1);
  }

  /* Ephemerons: a type registered before the heap, and one registered on it. */
  uint32_t eph_late;
  CHECK(flipgc_heap_register_ephemeron(heap, "eph-late", &eph_late) == FLIPGC_OK);
  CHECK(ephemerons(m, eph_before, arr) == 0);
  CHECK(ephemerons(m, eph_late, arr) == 0);

  /* Identity hashes stay with their objects through moves; cleaners hand back
     the tokens of freed objects, and only theirs. */
  flipgc_finalizer_queue *q = flipgc_finalizer_queue_new(heap);
  uint64_t hashes[NTYPES];
  for (uint32_t k = 0; k < NTYPES; k++) {
    flipgc_get_field(m, 0, k); /* 1 */
    hashes[k] = flipgc_identity_hash(m, 1);
    flipgc_stack_truncate(m, 1);
  }
  for (uint64_t k = 0; k < 100; k++) {
    CHECK(flipgc_alloc(m, node, 0) == FLIPGC_OK); /* the top */
    size_t top = flipgc_stack_len(m) - 1;
    flipgc_register_cleaner(m, top, 5000 + k, q);
    if (k % 2 == 0) flipgc_stack_truncate(m, top); /* odd ones stay on the stack */
  }
  size_t kept_base = 1;
  flipgc_collect(m);
  flipgc_collect(m);
  uint64_t token, tokens = 0, token_sum = 0;
  while (flipgc_poll_token(q, &token)) {
    CHECK(token >= 5000 && token < 5100 && token % 2 == 0);
    tokens++;
    token_sum += token;
  }
  CHECK(tokens == 50 && token_sum == 50 * 5000 + 2 * (49 * 50 / 2));
  flipgc_stack_truncate(m, kept_base);
  for (uint32_t k = 0; k < NTYPES; k++) {
    flipgc_get_field(m, 0, k); /* 1 */
    CHECK(flipgc_identity_hash(m, 1) == hashes[k]);
    flipgc_stack_truncate(m, 1);
  }
  flipgc_finalizer_queue_free(q);

  /* A pinned byte array keeps its address and bytes. */
  uint32_t bytes;
  CHECK(flipgc_heap_register_byte_array(heap, "buffer", &bytes) == FLIPGC_OK);
  CHECK(flipgc_alloc_pinned(m, bytes, 100) == FLIPGC_OK); /* 1 */
  uint8_t *p = flipgc_pinned_payload(m, 1);
  for (int i = 0; i < 100; i++) p[i] = (uint8_t)(i * 7);
  flipgc_handle *h = flipgc_handle_new(m, 1);
  flipgc_stack_truncate(m, 1);
  for (int k = 0; k < 3000; k++) {
    CHECK(flipgc_alloc(m, node, 0) == FLIPGC_OK);
    flipgc_stack_truncate(m, 1);
  }
  flipgc_collect(m);
  flipgc_collect(m);
  flipgc_push_handle(m, h); /* 1 */
  CHECK(flipgc_pinned_payload(m, 1) == p);
  uint8_t back[100];
  flipgc_read_bytes(m, 1, 0, back, 100);
  for (int i = 0; i < 100; i++) CHECK(back[i] == (uint8_t)(i * 7));
  flipgc_handle_free(h);
  CHECK(flipgc_verify(m) == FLIPGC_OK);
  printf("ok types=%u ephemerons=%u\n", (unsigned)NTYPES, (unsigned)NEPH * 2);
  flipgc_mutator_free(m);
  flipgc_heap_free(heap);
  return 0;
}
