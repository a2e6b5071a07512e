//! The VM's objects one by one: the layout the model reports for each shape, field
//! and element access surviving collections, and clear refusals of misuse (a
//! field of the wrong kind, an index out of bounds, an allocation the model
//! disagrees with, a class file with errors).

use flipgc_core::{Heap, HeapConfig, Mutator};
use flipgc_jvmlike::class::LoadError;
use flipgc_jvmlike::classfile::ParseErrorKind;
use flipgc_jvmlike::object::{
    array_len, prim_elem, push_array, push_new, ref_elem, set_prim_elem, set_ref_elem, Jvm,
    PrimField, RefField,
};

const CLASSES: &str = "\
class t.Pair
    long tag
    ref first
    double weight
    ref second
end
array t.Refs of ref
array t.Longs of long
";

fn vm() -> (Heap, Jvm) {
    let mut c = HeapConfig::new(8 << 20);
    c.verify_after_gc = true;
    let (heap, jvm) = Jvm::with_heap(c).unwrap();
    jvm.load(CLASSES).unwrap();
    (heap, jvm)
}

#[test]
fn fields_and_elements_survive_collections() {
    let (heap, jvm) = vm();
    let pair = jvm.class("t.Pair").unwrap();
    let (refs, longs) = (jvm.class("t.Refs").unwrap(), jvm.class("t.Longs").unwrap());
    let first = RefField::of(pair, "first").unwrap();
    let second = RefField::of(pair, "second").unwrap();
    let tag = PrimField::of(pair, "tag").unwrap();
    let weight = PrimField::of(pair, "weight").unwrap();
    assert_eq!((first.slot(), second.slot()), (1, 2));
    assert_eq!((tag.slot(), weight.slot()), (3, 4));

    let mut m: Mutator = heap.bind_mutator().unwrap();
    // [pairs array, longs array], each pair i: tag i, weight i/2, first -> pair i-1.
    push_array(&mut m, refs, 100).unwrap();
    push_array(&mut m, longs, 100).unwrap();
    for i in 0..100u64 {
        push_new(&mut m, pair).unwrap();
        let p = m.pop().unwrap();
        tag.set(&m, p, i);
        weight.set(&m, p, (i as f64 / 2.0).to_bits());
        let arr = m.stack_get(0).unwrap();
        let prev = (i > 0).then(|| ref_elem(&m, arr, i as usize - 1)).flatten();
        first.set(&m, p, prev);
        set_ref_elem(&m, arr, i as usize, Some(p));
        set_prim_elem(&m, m.stack_get(1).unwrap(), i as usize, i * 7);
    }
    for round in 0..3 {
        // Garbage, then a collection: everything moves.
        for _ in 0..20_000 {
            push_new(&mut m, pair).unwrap();
            m.pop();
        }
        m.collect();
        let (arr, ls) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
        assert_eq!((array_len(&m, arr), array_len(&m, ls)), (100, 100));
        for i in 0..100usize {
            let p = ref_elem(&m, arr, i).expect("set");
            assert_eq!(tag.get(&m, p), i as u64, "round {round}");
            assert_eq!(f64::from_bits(weight.get(&m, p)), i as f64 / 2.0);
            assert!(second.get(&m, p).is_none());
            let prev = first.get(&m, p).map(|q| tag.get(&m, q));
            assert_eq!(prev, i.checked_sub(1).map(|j| j as u64));
            assert_eq!(prim_elem(&m, ls, i), i as u64 * 7);
            assert!(std::ptr::eq(jvm.class_of(&m, p), pair));
        }
    }
    m.verify().unwrap();
    assert!(heap.pause_log().collections() >= 3);
}

#[test]
fn fields_resolve_by_name_and_kind() {
    let (_heap, jvm) = vm();
    let pair = jvm.class("t.Pair").unwrap();
    let e = RefField::of(pair, "tag").unwrap_err();
    assert!(e.contains("t.Pair.tag is long, not ref"), "{e}");
    let e = PrimField::of(pair, "first").unwrap_err();
    assert!(e.contains("is ref, not a primitive"), "{e}");
    let e = RefField::of(pair, "third").unwrap_err();
    assert!(e.contains("no field \"third\""), "{e}");
    assert!(jvm.class("t.Missing").unwrap_err().contains("t.Missing"));
}

#[test]
fn loading_reports_errors_with_lines_and_loads_nothing() {
    let (_heap, jvm) = vm();
    let e = jvm
        .load("class t.New\n ref a\nend\nclass t.Pair\nend\n")
        .unwrap_err();
    let LoadError::Parse(p) = &e else {
        panic!("{e}")
    };
    assert_eq!(p.line, 4);
    assert_eq!(p.kind, ParseErrorKind::DuplicateClass("t.Pair".into()));
    assert!(jvm.class("t.New").is_err(), "a failed load loads nothing");
    let e = jvm.load("class t.X\n  pointer p\nend\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "class description, line 2: unknown field kind \"pointer\" (known: ref, long, int, double, boolean)"
    );
}

#[test]
#[should_panic(expected = "index 3 out of bounds for an array of length 3")]
fn element_index_out_of_bounds_panics() {
    let (heap, jvm) = vm();
    let mut m = heap.bind_mutator().unwrap();
    push_array(&mut m, jvm.class("t.Longs").unwrap(), 3).unwrap();
    prim_elem(&m, m.stack_get(0).unwrap(), 3);
}

#[test]
fn the_collector_refuses_an_allocation_the_model_disagrees_with() {
    let (heap, jvm) = vm();
    let pair = jvm.class("t.Pair").unwrap();
    let mut m = heap.bind_mutator().unwrap();
    // A Pair is 5 words with 1 header word.
    assert!(m.alloc_object(4, &[pair.header()]).is_err());
    assert!(m.alloc_object(5, &[pair.header(), 0]).is_err());
    // An array's size follows its length word.
    let longs = jvm.class("t.Longs").unwrap();
    assert!(m.alloc_object(2 + 9, &[longs.header(), 10]).is_err());
    assert!(m.alloc_object(2 + 10, &[longs.header(), 10]).is_ok());
    // A header that names no class is a one-word object to the model.
    assert!(m.alloc_object(3, &[8]).is_err());
    m.collect();
    m.verify().unwrap();
}
