/* The C API's atomic field operations and the generated-code protocol (the
 * barrier's flag and slow path before a raw release store; the poll byte and
 * its slow path), checked after a collection and by verification. */
#include <stdint.h>
#include <stdio.h>
#include "flipgc.h"

#define CHECK(c)                                  \
  if (!(c)) {                                     \
    fprintf(stderr, "jit.c: failed: %s\n", #c);   \
    return 1;                                     \
  }

int main(void) {
  flipgc_config *cfg = flipgc_config_new(16u << 20);
  flipgc_config_set(cfg, "verify_after_gc", "true");
  flipgc_types *types = flipgc_types_new();
  uint32_t arr, node;
  CHECK(flipgc_types_ref_array(types, "array", &arr) == FLIPGC_OK);
  CHECK(flipgc_types_fixed(types, "node", 1, NULL, 0, &node) == FLIPGC_OK);
  flipgc_heap *heap;
  CHECK(flipgc_heap_new(cfg, types, &heap) == FLIPGC_OK);
  flipgc_mutator *m;
  CHECK(flipgc_mutator_bind(heap, &m) == FLIPGC_OK);
  CHECK(flipgc_alloc(m, arr, 4) == FLIPGC_OK); /* 0 */
  CHECK(flipgc_alloc(m, node, 0) == FLIPGC_OK); /* 1 */
  CHECK(flipgc_alloc(m, node, 0) == FLIPGC_OK); /* 2 */
  flipgc_push_null(m);                          /* 3 */
  CHECK(flipgc_cas_field(m, 0, 0, 3, 1) == 1);  /* a[0]: null -> n1 */
  CHECK(flipgc_cas_field(m, 0, 0, 3, 2) == 0);  /* a[0] is not null */
  flipgc_get_field(m, 0, 0);                    /* 4 */
  CHECK(flipgc_stack_same(m, 4, 1));
  flipgc_swap_field(m, 0, 0, 2);                /* a[0] = n2; old -> 5 */
  CHECK(flipgc_stack_same(m, 5, 1));
  flipgc_copy_refs(m, 0, 0, 0, 1, 2);           /* a[1..3] = old a[0..2] = n2, null */
  flipgc_get_field(m, 0, 1);                    /* 6 */
  CHECK(flipgc_stack_same(m, 6, 2));
  flipgc_get_field(m, 0, 2);                    /* 7 */
  CHECK(flipgc_stack_kind(m, 7, NULL) == 0);
  /* Over immediates: a[2]: null -> 42 (a fixnum); 42 -> n1 only when 42 is
     expected; swaps hand back n1, then the immediate 43. */
  CHECK(flipgc_push_imm(m, 42 << 1 | 1) == FLIPGC_OK); /* 8 */
  CHECK(flipgc_push_imm(m, 43 << 1 | 1) == FLIPGC_OK); /* 9 */
  CHECK(flipgc_cas_field(m, 0, 2, 3, 8) == 1);  /* a[2]: null -> 42 */
  CHECK(flipgc_cas_field(m, 0, 2, 9, 1) == 0);  /* a[2] is 42, not 43 */
  CHECK(flipgc_cas_field(m, 0, 2, 8, 1) == 1);  /* a[2]: 42 -> n1 */
  flipgc_swap_field(m, 0, 2, 9);                /* a[2] = 43; old (n1) -> 10 */
  CHECK(flipgc_stack_same(m, 10, 1));
  flipgc_swap_field(m, 0, 2, 3);                /* a[2] = null; old (43) -> 11 */
  uint64_t bits = 0;
  CHECK(flipgc_stack_kind(m, 11, &bits) == 2 && bits == (43 << 1 | 1));
  flipgc_stack_truncate(m, 8);

  /* A generated store a[3] = n1: flag test, slow path, release store, card
     mark (inlined). */
  const uint8_t *flag = flipgc_barrier_flag(m);
  uint64_t a = flipgc_stack_word(m, 0), v = flipgc_stack_word(m, 1);
  uintptr_t slot = (uintptr_t)a + 8 * (1 + 3);
  if (__atomic_load_n(flag, __ATOMIC_RELAXED)) flipgc_barrier_slow(m, slot);
  __atomic_store_n((uint64_t *)slot, v, __ATOMIC_RELEASE);
  size_t start = 0, len = 0;
  flipgc_moving_space(m, &start, &len);
  CHECK(slot - start < len);
  uint8_t *cards = (uint8_t *)flipgc_card_table(m);
  __atomic_store_n(cards + ((slot - start) >> 9), 1, __ATOMIC_RELAXED);
  flipgc_card_mark(m, slot); /* the same, as a call */
  /* A poll. */
  const uint8_t *poll = flipgc_poll_word(m);
  if (__atomic_load_n(poll, __ATOMIC_RELAXED)) flipgc_poll_slow(m);
  flipgc_poll_slow(m);

  flipgc_collect(m);
  flipgc_get_field(m, 0, 3);                    /* 8 */
  CHECK(flipgc_stack_same(m, 8, 1));
  flipgc_get_field(m, 0, 0);                    /* 9 */
  CHECK(flipgc_stack_same(m, 9, 2));
  CHECK(flipgc_verify(m) == FLIPGC_OK);
  flipgc_mutator_free(m);
  flipgc_heap_free(heap);
  puts("ok");
  return 0;
}
