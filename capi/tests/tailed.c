/* Tailed objects through the C API: a chain of closures (fixed part: code, id,
 * link; then a reference tail whose last element is the only reference to the
 * next closure, or the link field for an empty tail), code objects with word
 * tails, immediates in the tails, one tail large enough for the large-object
 * space. A checksum of the chain is taken before and after collections, on the
 * path the arguments configure (flipgc_config_set key=value pairs), and the heap
 * is verified. The argument `misuse` instead reads past a tail's end, which
 * must abort with the call's name. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "flipgc.h"

#define CHECK(c)                                     \
  if (!(c)) {                                        \
    fprintf(stderr, "tailed.c: failed: %s\n", #c);   \
    return 1;                                        \
  }

enum { N = 90, LARGE = 9000 };
static uint32_t clos, words;

static size_t clos_len(size_t i) {
  if (i == 7) return LARGE;
  return i % 6 == 0 ? 0 : 1 + i % 5;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x100000001b3ull;
  return h << 17 | h >> 47;
}

/* The word-tail object in slot `s`: id, length, and each word (read as a tail
 * element and as a field). */
static uint64_t words_sum(flipgc_mutator *m, size_t s) {
  size_t len = flipgc_tail_len(m, s);
  uint64_t h = mix(flipgc_read_word(m, s, 0), len);
  for (size_t j = 0; j < len; j++) {
    uint64_t w = flipgc_read_tail_word(m, s, j);
    if (w != flipgc_read_word(m, s, 1 + j)) return 0;
    h = mix(h, w);
  }
  return h;
}

/* Walks the chain from slot 0 (the stack is 1 deep on entry and exit); the
 * number of closures goes to `*count`. */
static uint64_t checksum(flipgc_mutator *m, size_t *count) {
  uint64_t h = 0;
  *count = 0;
  flipgc_stack_dup(m, 0); /* 1: the cursor */
  while (flipgc_stack_kind(m, 1, NULL) == 1) {
    uint64_t id = flipgc_read_word(m, 1, 1);
    size_t len = flipgc_tail_len(m, 1);
    if (len != clos_len(id) || id != *count) return 0;
    h = mix(mix(h, id), len);
    flipgc_get_field(m, 1, 0); /* 2: code */
    h = mix(h, words_sum(m, 2));
    flipgc_stack_truncate(m, 2);
    for (size_t j = 0; j + 1 < len; j++) {
      uint64_t bits = 0;
      flipgc_get_tail(m, 1, j); /* 2 */
      int kind = flipgc_stack_kind(m, 2, &bits);
      h = mix(h, kind == 2 ? bits : kind == 1 ? words_sum(m, 2) : 1);
      flipgc_stack_truncate(m, 2);
    }
    if (len > 0)
      flipgc_get_tail(m, 1, len - 1); /* 2: the next closure */
    else
      flipgc_get_field(m, 1, 2);
    flipgc_stack_set(m, 1, 2);
    flipgc_stack_truncate(m, 2);
    ++*count;
  }
  flipgc_stack_truncate(m, 1);
  return h;
}

static int build(flipgc_mutator *m) {
  flipgc_push_null(m); /* 0: the chain so far */
  for (size_t i = N; i-- > 0;) {
    size_t len = clos_len(i);
    CHECK(flipgc_alloc(m, clos, len) == FLIPGC_OK);        /* 1 */
    CHECK(flipgc_alloc(m, words, i % 4) == FLIPGC_OK);     /* 2: code */
    flipgc_write_word(m, 2, 0, 1000 + i);
    for (size_t j = 0; j < i % 4; j++)
      flipgc_write_tail_word(m, 2, j, flipgc_stack_word(m, 1)); /* looks like a ref */
    flipgc_set_field(m, 1, 0, 2);
    flipgc_write_word(m, 1, 1, i);
    flipgc_stack_truncate(m, 2);
    for (size_t j = 0; j + 1 < len; j++) {
      if (j % 2 == 0) {
        CHECK(flipgc_push_imm(m, flipgc_stack_word(m, 1) | (1 + j % 7)) == FLIPGC_OK);
      } else {
        CHECK(flipgc_alloc(m, words, 1) == FLIPGC_OK);
        flipgc_write_word(m, 2, 0, i * 100000 + j);
        flipgc_write_tail_word(m, 2, 0, j);
      }
      flipgc_set_tail(m, 1, j, 2);
      flipgc_stack_truncate(m, 2);
    }
    if (len > 0)
      flipgc_set_tail(m, 1, len - 1, 0);
    else
      flipgc_set_field(m, 1, 2, 0);
    flipgc_stack_set(m, 0, 1);
    flipgc_stack_truncate(m, 1);
  }
  return 0;
}

int main(int argc, char **argv) {
  flipgc_config *cfg = flipgc_config_new(32u << 20);
  flipgc_config_set(cfg, "verify_after_gc", "true");
  int misuse = 0;
  for (int i = 1; i < argc; i++) {
    char key[64];
    const char *eq = strchr(argv[i], '=');
    if (!strcmp(argv[i], "misuse")) {
      misuse = 1;
      continue;
    }
    CHECK(eq && (size_t)(eq - argv[i]) < sizeof key);
    memcpy(key, argv[i], eq - argv[i]);
    key[eq - argv[i]] = 0;
    CHECK(flipgc_config_set(cfg, key, eq + 1) == FLIPGC_OK);
  }
  flipgc_types *types = flipgc_types_new();
  uint32_t refs[] = {0, 2}, bad[] = {3}, dummy;
  CHECK(flipgc_types_tailed(types, "closure", 3, refs, 2, FLIPGC_TAIL_REFS, &clos) == FLIPGC_OK);
  CHECK(flipgc_types_tailed(types, "words", 1, NULL, 0, FLIPGC_TAIL_WORDS, &words) == FLIPGC_OK);
  CHECK(flipgc_types_tailed(types, "bad", 3, bad, 1, FLIPGC_TAIL_REFS, &dummy) ==
        FLIPGC_TYPE_ERROR);
  CHECK(flipgc_types_tailed(types, "bad", 3, NULL, 0, 7, &dummy) == FLIPGC_INVALID_ARGUMENT);
  flipgc_heap *heap;
  CHECK(flipgc_heap_new(cfg, types, &heap) == FLIPGC_OK);
  flipgc_mutator *m;
  CHECK(flipgc_mutator_bind(heap, &m) == FLIPGC_OK);
  CHECK(flipgc_alloc(m, clos, (size_t)1 << 40) == FLIPGC_TYPE_ERROR);
  if (misuse) {
    CHECK(flipgc_alloc(m, clos, 4) == FLIPGC_OK);
    flipgc_get_tail(m, 0, 4);
    printf("after\n");
    return 0;
  }
  if (build(m)) return 1;
  size_t count;
  uint64_t before = checksum(m, &count);
  CHECK(count == N && before != 0);
  for (int round = 0; round < 3; round++) {
    for (int k = 0; k < 3000; k++) {
      CHECK(flipgc_alloc(m, clos, k % 4) == FLIPGC_OK);
      CHECK(flipgc_alloc(m, words, k % 3) == FLIPGC_OK);
      flipgc_stack_truncate(m, 1);
    }
    flipgc_collect(m);
    CHECK(checksum(m, &count) == before && count == N);
  }
  /* The atomic operations by field index, on tail elements (fields 3..). */
  CHECK(flipgc_alloc(m, clos, 3) == FLIPGC_OK);  /* 1 */
  CHECK(flipgc_alloc(m, words, 0) == FLIPGC_OK); /* 2 */
  flipgc_push_null(m);                           /* 3 */
  CHECK(flipgc_cas_field(m, 1, 3, 3, 2) == 1);   /* tail[0]: null -> w */
  CHECK(flipgc_cas_field(m, 1, 3, 3, 2) == 0);
  flipgc_copy_refs(m, 1, 3, 1, 4, 2);            /* tail[1..3] = tail[0..2] */
  flipgc_swap_field(m, 1, 4, 3);                 /* tail[1] = null; old -> 4 */
  CHECK(flipgc_stack_same(m, 4, 2));
  flipgc_collect(m);
  flipgc_get_tail(m, 1, 0); /* 5 */
  CHECK(flipgc_stack_same(m, 5, 2));
  flipgc_get_tail(m, 1, 1); /* 6 */
  CHECK(flipgc_stack_kind(m, 6, NULL) == 0);
  CHECK(flipgc_length(m, 1) == 6 && flipgc_tail_len(m, 1) == 3);
  CHECK(flipgc_verify(m) == FLIPGC_OK);
  flipgc_stack_truncate(m, 1);
  CHECK(checksum(m, &count) == before && count == N);
  printf("ok closures=%zu\n", count);
  flipgc_mutator_free(m);
  flipgc_heap_free(heap);
  return 0;
}
