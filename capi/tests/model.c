/* A heap whose object layout the C program owns (flipgc_model): word 0 of
 * every object points to a class (8-byte aligned, so bit 0 is clear), and the
 * model's functions answer from the class and, for arrays, the length word.
 * Classes: a record (next, id, items: slots 1 and 3 are references, 2 a raw
 * word), a pair (car, cdr), an array (length word, then that many reference
 * slots) and a byte buffer (length word, then raw words). A chain of records
 * holds arrays of pairs and immediates (one array large enough for the
 * large-object space) and byte buffers; its checksum is taken before and after
 * collections on the path the arguments configure (flipgc_config_set key=value
 * pairs), and the heap is verified. Then weak slots (a pair whose car is
 * weak) and ephemerons (weak_slots, ephemeron_slots) on the same path. `noscan` leaves the model's scan function
 * out (the collector asks is_ref_slot per word instead); `misuse` writes a raw
 * word into a reference slot, which must abort with the call's name. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "flipgc.h"

#define CHECK(c)                                    \
  if (!(c)) {                                       \
    fprintf(stderr, "model.c: failed: %s\n", #c);   \
    return 1;                                       \
  }

struct class {
  int array;        /* 1: header, length word, then length slots */
  int refs;         /* 1: the array's slots are references */
  size_t words;     /* fixed classes: size in words */
  uint64_t ref_mask; /* fixed classes: bit i = word i is a reference */
  uint64_t weak_mask; /* the weak ones among them */
  int ephemeron;    /* 1: word 2 the key, word 1 the value (both weak) */
} __attribute__((aligned(8)));

static const struct class RECORD = {0, 0, 4, 0xa, 0, 0}; /* words 1 and 3 */
static const struct class PAIR = {0, 0, 3, 0x6, 0, 0};   /* words 1 and 2 */
static const struct class ARRAY = {1, 1, 0, 0, 0, 0};
static const struct class BYTES = {1, 0, 0, 0, 0, 0};
/* A pair whose car (word 1) is weak, and an ephemeron (key, value). */
static const struct class WEAKPAIR = {0, 0, 3, 0x6, 0x2, 0};
static const struct class EPHEMERON = {0, 0, 3, 0x6, 0x6, 1};

/* Counts calls, to show the collector used the table (plain counters: the
 * model may be called concurrently, so only their being nonzero matters). */
static volatile size_t scans, ref_queries;

static const struct class *class_of(const uint64_t *obj) {
  return (const struct class *)(uintptr_t)obj[0];
}

static size_t object_words(const void *ctx, const uint64_t *obj) {
  (void)ctx;
  const struct class *c = class_of(obj);
  return c->array ? 2 + (size_t)obj[1] : c->words;
}

static size_t header_words(const void *ctx, const uint64_t *obj) {
  (void)ctx;
  return class_of(obj)->array ? 2 : 1;
}

static int is_ref_slot(const void *ctx, const uint64_t *obj, size_t i) {
  (void)ctx;
  ref_queries++;
  const struct class *c = class_of(obj);
  if (c->array) return c->refs && i >= 2 && i < 2 + (size_t)obj[1];
  return i < 64 && (c->ref_mask >> i & 1);
}

static void scan(const void *ctx, const uint64_t *obj, void (*visit)(void *, size_t),
                 void *visit_ctx) {
  (void)ctx;
  scans++;
  const struct class *c = class_of(obj);
  if (c->array) {
    if (c->refs)
      for (size_t i = 0; i < (size_t)obj[1]; i++) visit(visit_ctx, 2 + i);
    return;
  }
  for (size_t i = 0; i < c->words; i++)
    if (c->ref_mask >> i & 1) visit(visit_ctx, i);
}

static int fixed_layout(const void *ctx, uint64_t w0, flipgc_fixed_layout *out) {
  (void)ctx;
  const struct class *c = (const struct class *)(uintptr_t)w0;
  if (c->array) return 0;
  out->words = c->words;
  out->header_words = 1;
  out->ref_mask = c->ref_mask;
  return 1;
}

static uint64_t weak_slots(const void *ctx, uint64_t w0) {
  (void)ctx;
  return ((const struct class *)(uintptr_t)w0)->weak_mask;
}

static int ephemeron_slots(const void *ctx, uint64_t w0, size_t *key, size_t *value) {
  (void)ctx;
  if (!((const struct class *)(uintptr_t)w0)->ephemeron) return 0;
  *key = 2; /* not a built-in ephemeron's order */
  *value = 1;
  return 1;
}

enum { N = 120, LARGE = 12000 };

static uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x100000001b3ull;
  return h << 17 | h >> 47;
}

static size_t items_len(size_t i) { return i == 5 ? LARGE : i % 7; }

/* Pushes a new object of class `c` with `len` elements (arrays) or its fixed
 * size. */
static flipgc_status alloc(flipgc_mutator *m, const struct class *c, size_t len) {
  uint64_t prefix[2] = {(uint64_t)(uintptr_t)c, len};
  if (c->array) return flipgc_alloc_object(m, 2 + len, prefix, 2);
  return flipgc_alloc_object(m, c->words, prefix, 1);
}

/* Walks the chain from slot 0 (the stack is 1 deep on entry and exit). */
static uint64_t checksum(flipgc_mutator *m, size_t *count) {
  uint64_t h = 0, bits = 0;
  *count = 0;
  flipgc_stack_dup(m, 0); /* 1: the cursor */
  while (flipgc_stack_kind(m, 1, NULL) == 1) {
    uint64_t id = flipgc_read_slot_word(m, 1, 2);
    if (id != *count || flipgc_read_slot_word(m, 1, 0) != (uint64_t)(uintptr_t)&RECORD)
      return 0;
    h = mix(h, id);
    flipgc_get_slot(m, 1, 3); /* 2: items */
    size_t len = (size_t)flipgc_read_slot_word(m, 2, 1);
    if (len != items_len(id)) return 0;
    h = mix(h, len);
    for (size_t j = 0; j < len; j++) {
      flipgc_get_slot(m, 2, 2 + j); /* 3 */
      int kind = flipgc_stack_kind(m, 3, &bits);
      if (kind == 2) {
        h = mix(h, bits);
      } else if (kind == 1 && flipgc_read_slot_word(m, 3, 0) == (uint64_t)(uintptr_t)&PAIR) {
        flipgc_get_slot(m, 3, 1); /* 4: car, an immediate */
        if (flipgc_stack_kind(m, 4, &bits) != 2) return 0;
        h = mix(h, bits);
        flipgc_get_slot(m, 3, 2); /* 5: cdr, a byte buffer */
        size_t n = (size_t)flipgc_read_slot_word(m, 5, 1);
        for (size_t k = 0; k < n; k++) h = mix(h, flipgc_read_slot_word(m, 5, 2 + k));
      } else {
        return 0;
      }
      flipgc_stack_truncate(m, 3);
    }
    flipgc_get_slot(m, 1, 1); /* 3: next */
    flipgc_stack_set(m, 1, 3);
    flipgc_stack_truncate(m, 2);
    ++*count;
  }
  flipgc_stack_truncate(m, 1);
  return h;
}

static int build(flipgc_mutator *m) {
  flipgc_push_null(m); /* 0: the chain so far */
  for (size_t i = N; i-- > 0;) {
    size_t len = items_len(i);
    CHECK(alloc(m, &RECORD, 0) == FLIPGC_OK); /* 1 */
    CHECK(alloc(m, &ARRAY, len) == FLIPGC_OK); /* 2 */
    for (size_t j = 0; j < len; j++) {
      if (j % 3 == 0) {
        CHECK(flipgc_set_slot_imm(m, 2, 2 + j, (i * 1000 + j) << 3 | 1) == FLIPGC_OK);
        continue;
      }
      CHECK(alloc(m, &PAIR, 0) == FLIPGC_OK);      /* 3 */
      CHECK(alloc(m, &BYTES, j % 4) == FLIPGC_OK); /* 4 */
      for (size_t k = 0; k < j % 4; k++)            /* words that look like references */
        flipgc_write_slot_word(m, 4, 2 + k, flipgc_stack_word(m, 1) + 8 * k);
      flipgc_set_slot(m, 3, 2, 4);
      CHECK(flipgc_set_slot_imm(m, 3, 1, (uint64_t)j << 3 | 2) == FLIPGC_OK);
      flipgc_set_slot(m, 2, 2 + j, 3);
      flipgc_stack_truncate(m, 3);
    }
    flipgc_set_slot(m, 1, 3, 2);
    flipgc_write_slot_word(m, 1, 2, i);
    flipgc_set_slot(m, 1, 1, 0);
    flipgc_stack_set(m, 0, 1);
    flipgc_stack_truncate(m, 1);
  }
  return 0;
}

int main(int argc, char **argv) {
  flipgc_config *cfg = flipgc_config_new(32u << 20);
  flipgc_config_set(cfg, "verify_after_gc", "true");
  int misuse = 0, noscan = 0;
  for (int i = 1; i < argc; i++) {
    char key[64];
    const char *eq = strchr(argv[i], '=');
    if (!strcmp(argv[i], "misuse")) {
      misuse = 1;
      continue;
    }
    if (!strcmp(argv[i], "noscan")) {
      noscan = 1;
      continue;
    }
    CHECK(eq && (size_t)(eq - argv[i]) < sizeof key);
    memcpy(key, argv[i], eq - argv[i]);
    key[eq - argv[i]] = 0;
    CHECK(flipgc_config_set(cfg, key, eq + 1) == FLIPGC_OK);
  }
  flipgc_model model = {NULL,         object_words, header_words,   is_ref_slot,
                        noscan ? NULL : scan, fixed_layout, weak_slots, ephemeron_slots};
  flipgc_heap *heap;
  /* A table without a required function is refused. */
  flipgc_model partial = model;
  partial.is_ref_slot = NULL;
  flipgc_config *spare = flipgc_config_new(16u << 20);
  CHECK(flipgc_heap_new_model(spare, &partial, &heap) == FLIPGC_INVALID_ARGUMENT);
  CHECK(strstr(flipgc_last_error(), "required") != NULL);
  CHECK(flipgc_heap_new_model(cfg, &model, &heap) == FLIPGC_OK);
  flipgc_mutator *m;
  CHECK(flipgc_mutator_bind(heap, &m) == FLIPGC_OK);
  /* Bad prefixes, and a size the model disagrees with, are type errors. */
  uint64_t odd = (uint64_t)(uintptr_t)&PAIR | 1, pair = (uint64_t)(uintptr_t)&PAIR;
  CHECK(flipgc_alloc_object(m, 3, &odd, 1) == FLIPGC_TYPE_ERROR);
  CHECK(flipgc_alloc_object(m, 5, &pair, 1) == FLIPGC_TYPE_ERROR);
  CHECK(flipgc_alloc_object(m, 3, &pair, 0) == FLIPGC_TYPE_ERROR);
  CHECK(flipgc_stack_len(m) == 0);
  if (misuse) {
    CHECK(alloc(m, &PAIR, 0) == FLIPGC_OK);
    flipgc_write_slot_word(m, 0, 1, 0x1000);
    printf("after\n");
    return 0;
  }
  if (build(m)) return 1;
  size_t count;
  uint64_t before = checksum(m, &count);
  CHECK(count == N && before != 0);
  for (int round = 0; round < 3; round++) {
    for (int k = 0; k < 4000; k++) {
      CHECK(alloc(m, k % 2 ? &PAIR : &ARRAY, k % 9) == FLIPGC_OK);
      flipgc_stack_truncate(m, 1);
    }
    flipgc_collect(m);
    CHECK(checksum(m, &count) == before && count == N);
  }
  /* Identity hashes and finalizers work on model objects: the first record's
     hash survives collections, and a dropped pair registered for finalization
     comes back with its car. */
  uint64_t hash0 = flipgc_identity_hash(m, 0);
  flipgc_finalizer_queue *q = flipgc_finalizer_queue_new(heap);
  CHECK(alloc(m, &PAIR, 0) == FLIPGC_OK); /* 1 */
  CHECK(flipgc_set_slot_imm(m, 1, 1, 77 << 3 | 1) == FLIPGC_OK);
  flipgc_register_finalizer(m, 1, q);
  flipgc_stack_truncate(m, 1);
  flipgc_collect(m);
  flipgc_collect(m);
  CHECK(flipgc_identity_hash(m, 0) == hash0);
  CHECK(flipgc_poll_finalized(m, q) == 1); /* 1 */
  uint64_t car = 0;
  flipgc_get_slot(m, 1, 1); /* 2 */
  CHECK(flipgc_stack_kind(m, 2, &car) == 2 && car == (77 << 3 | 1));
  CHECK(flipgc_poll_finalized(m, q) == 0);
  flipgc_stack_truncate(m, 1);
  flipgc_finalizer_queue_free(q);
  CHECK(checksum(m, &count) == before && count == N);
  /* The atomics by word index work on model objects too. */
  CHECK(alloc(m, &PAIR, 0) == FLIPGC_OK); /* 1 */
  CHECK(alloc(m, &PAIR, 0) == FLIPGC_OK); /* 2 */
  flipgc_push_null(m);                    /* 3 */
  CHECK(flipgc_cas_field(m, 1, 2, 3, 2) == 1);
  flipgc_collect(m);
  flipgc_get_slot(m, 1, 2); /* 4 */
  CHECK(flipgc_stack_same(m, 4, 2));
  CHECK(flipgc_verify(m) == FLIPGC_OK);
  flipgc_stack_truncate(m, 1);
  CHECK(checksum(m, &count) == before && count == N);
  /* Weak slots and ephemerons: a weak pair's car loses a dropped pair and
     keeps a held one; an ephemeron whose value holds its own key is cleared
     with the key dropped, and kept whole with the key held. */
  CHECK(alloc(m, &WEAKPAIR, 0) == FLIPGC_OK);  /* 1: to the dropped pair */
  CHECK(alloc(m, &WEAKPAIR, 0) == FLIPGC_OK);  /* 2: to the held pair */
  CHECK(alloc(m, &EPHEMERON, 0) == FLIPGC_OK); /* 3: key dropped */
  CHECK(alloc(m, &EPHEMERON, 0) == FLIPGC_OK); /* 4: key held */
  CHECK(alloc(m, &PAIR, 0) == FLIPGC_OK);      /* 5: held */
  CHECK(alloc(m, &PAIR, 0) == FLIPGC_OK);      /* 6: dropped */
  flipgc_set_slot(m, 1, 1, 6);
  flipgc_set_slot(m, 2, 1, 5);
  for (size_t e = 3; e <= 4; e++) {
    CHECK(alloc(m, &PAIR, 0) == FLIPGC_OK); /* 7: the key (e == 4: held in 5) */
    if (e == 4) flipgc_set_slot(m, 5, 2, 7);
    CHECK(alloc(m, &PAIR, 0) == FLIPGC_OK); /* 8: the value, whose car is the key */
    flipgc_set_slot(m, 8, 1, 7);
    flipgc_set_slot(m, e, 2, 7); /* the key */
    flipgc_set_slot(m, e, 1, 8); /* the value */
    flipgc_stack_truncate(m, 7);
  }
  flipgc_stack_truncate(m, 6); /* drops 6 */
  flipgc_collect(m);
  flipgc_collect(m);
  flipgc_get_slot(m, 1, 1); /* 6: cleared */
  CHECK(flipgc_stack_kind(m, 6, NULL) == 0);
  flipgc_get_slot(m, 2, 1); /* 7: the held pair */
  CHECK(flipgc_stack_same(m, 7, 5));
  flipgc_get_slot(m, 3, 1); /* 8 */
  flipgc_get_slot(m, 3, 2); /* 9 */
  CHECK(flipgc_stack_kind(m, 8, NULL) == 0 && flipgc_stack_kind(m, 9, NULL) == 0);
  flipgc_get_slot(m, 4, 2);  /* 10: the held key */
  flipgc_get_slot(m, 5, 2);  /* 11 */
  CHECK(flipgc_stack_kind(m, 10, NULL) == 1 && flipgc_stack_same(m, 10, 11));
  flipgc_get_slot(m, 4, 1);  /* 12: the value */
  flipgc_get_slot(m, 12, 1); /* 13: its car, the key */
  CHECK(flipgc_stack_same(m, 13, 10));
  CHECK(flipgc_verify(m) == FLIPGC_OK);
  flipgc_stack_truncate(m, 1);
  CHECK(checksum(m, &count) == before && count == N);
  CHECK(noscan ? scans == 0 && ref_queries > 0 : scans > 0);
  printf("ok records=%zu scans=%zu\n", count, (size_t)scans);
  flipgc_mutator_free(m);
  flipgc_heap_free(heap);
  return 0;
}
