/* A misuse the C API must stop at the boundary: a stack slot out of range. */
#include <stdio.h>
#include "flipgc.h"

int main(void) {
  flipgc_config *cfg = flipgc_config_new(8u << 20);
  flipgc_types *types = flipgc_types_new();
  flipgc_heap *heap;
  flipgc_mutator *m;
  if (flipgc_heap_new(cfg, types, &heap) != FLIPGC_OK) return 3;
  if (flipgc_mutator_bind(heap, &m) != FLIPGC_OK) return 3;
  (void)flipgc_read_word(m, 7, 0);
  printf("after\n");
  return 0;
}
