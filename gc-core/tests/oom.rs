//! Running out of memory: the moving space and the large-object space each report
//! `OutOfMemory` with sensible numbers, keep every rooted object intact, and work
//! again once roots are dropped. And the `AfterBytes` trigger really collects early.

use flipgc_core::{
    GcError, GcErrorKind, GcTrigger, Handle, Heap, HeapConfig, Mutator, TypeId, TypeRegistry,
};

const MIB: usize = 1 << 20;

#[derive(Clone, Copy)]
struct Types {
    /// Three words: references in fields 0 and 1, an id in field 2.
    node: TypeId,
    bytes: TypeId,
}

fn heap(cfg: HeapConfig) -> (Heap, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let bytes = r.byte_array("bytes").unwrap();
    (Heap::new(cfg, r).unwrap(), Types { node, bytes })
}

/// A byte array of `len` bytes whose first 8 bytes are `id` and the rest a pattern.
fn blob(m: &mut Mutator, t: Types, len: usize, id: u64) -> Result<Handle, GcError> {
    let h = m.alloc(t.bytes, len)?;
    let mut data: Vec<u8> = (0..len).map(|i| (id as usize + i * 13) as u8).collect();
    data[..8].copy_from_slice(&id.to_le_bytes());
    m.write_bytes(m.get(&h), 0, &data);
    Ok(h)
}

fn check_blob(m: &Mutator, h: &Handle, len: usize, id: u64) {
    let mut out = vec![0u8; len];
    m.read_bytes(m.get(h), 0, &mut out);
    assert_eq!(u64::from_le_bytes(out[..8].try_into().unwrap()), id);
    for (i, b) in out.iter().enumerate().skip(8) {
        assert_eq!(*b, (id as usize + i * 13) as u8, "blob {id} byte {i}");
    }
}

#[test]
fn the_moving_space_runs_out_reports_it_and_recovers() {
    let cfg = HeapConfig::new(4 * MIB);
    let tlab = cfg.tlab_size;
    let (heap, t) = heap(cfg);
    let capacity = heap.config().capacity;
    assert_eq!(capacity, 4 * MIB);
    let mut m = heap.bind_mutator().unwrap();
    const LEN: usize = 1000; // 1008 bytes with the header
    let mut kept = Vec::new();
    let err = loop {
        match blob(&mut m, t, LEN, kept.len() as u64) {
            Ok(h) => kept.push(h),
            Err(e) => break e,
        }
        assert!(kept.len() < capacity / LEN, "never ran out");
    };
    let GcErrorKind::OutOfMemory {
        requested,
        capacity: cap,
        live,
    } = *err.kind()
    else {
        panic!("expected OutOfMemory, got {err:?}")
    };
    eprintln!(
        "out of memory with {} objects: {live} of {capacity} bytes live, {} free",
        kept.len(),
        capacity - live
    );
    assert_eq!(requested, 8 + LEN);
    assert_eq!(cap, capacity);
    assert!(live <= capacity, "{live} live in {capacity}");
    assert_eq!(
        live,
        kept.len() * requested,
        "live is exactly what is rooted"
    );
    assert!(
        live + tlab + requested > capacity,
        "ran out with {live} of {capacity} live"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "out of memory: 1008 bytes requested, {live} of {capacity} bytes live after a full collection"
        )
    );
    assert!(!heap.pause_log().records().is_empty());
    // Every rooted object survived the failing allocation's collection intact.
    for (id, h) in kept.iter().enumerate() {
        check_blob(&m, h, LEN, id as u64);
    }
    // Still out of memory while the roots are held.
    assert!(matches!(
        m.alloc(t.bytes, LEN).map_err(GcError::into_kind),
        Err(GcErrorKind::OutOfMemory { .. })
    ));

    // Drop every other root: allocation works again, and the survivors are intact.
    let mut i = 0;
    kept.retain(|_| {
        i += 1;
        i % 2 == 0
    });
    let fresh: Vec<Handle> = (0..100)
        .map(|k| blob(&mut m, t, LEN, 1_000_000 + k).expect("room after dropping roots"))
        .collect();
    // (Collect before verifying: `Mutator::verify` trips over a live TLAB; see api.rs.)
    m.collect();
    let report = m.verify().expect("the heap verifies after running out");
    assert_eq!(report.objects, kept.len() + fresh.len());
    for (k, h) in kept.iter().enumerate() {
        check_blob(&m, h, LEN, (2 * k + 1) as u64);
    }
    for (k, h) in fresh.iter().enumerate() {
        check_blob(&m, h, LEN, 1_000_000 + k as u64);
    }
    drop((kept, fresh));
    let small = m.alloc(t.node, 0).unwrap();
    m.write_word(m.get(&small), 2, 42);
    m.collect();
    assert_eq!(m.read_word(m.get(&small), 2), 42);
    assert_eq!(heap.used_bytes(), 32);
}

#[test]
fn the_large_object_space_runs_out_reports_it_and_recovers() {
    let cfg = HeapConfig {
        large_object_capacity: MIB,
        ..HeapConfig::new(8 * MIB)
    };
    let (heap, t) = heap(cfg);
    let page = flipgc_heap::Capabilities::probe().geometry.page;
    let mut m = heap.bind_mutator().unwrap();
    const LEN: usize = 300 << 10;
    let footprint = (LEN + 8).next_multiple_of(page);
    let mut kept = Vec::new();
    let err = loop {
        match blob(&mut m, t, LEN, kept.len() as u64) {
            Ok(h) => kept.push(h),
            Err(e) => break e,
        }
        assert!(kept.len() <= 4, "the 1 MiB space never ran out");
    };
    assert_eq!(kept.len(), MIB / footprint, "as many as fit");
    let GcErrorKind::OutOfMemory {
        requested,
        capacity,
        live,
    } = *err.kind()
    else {
        panic!("expected OutOfMemory, got {err:?}")
    };
    assert_eq!(requested, LEN + 8);
    assert_eq!(capacity, MIB);
    assert_eq!(live, kept.len() * footprint);
    assert!(live + requested > capacity);
    assert_eq!(
        err.to_string(),
        format!(
            "out of memory: {requested} bytes requested, {live} of {capacity} bytes live after a full collection"
        )
    );
    assert_eq!(heap.large_object_count(), kept.len());
    assert_eq!(heap.large_object_bytes(), live);
    assert_eq!(
        heap.used_bytes(),
        0,
        "nothing spilled into the moving space"
    );
    for (id, h) in kept.iter().enumerate() {
        check_blob(&m, h, LEN, id as u64);
    }

    // Free one: exactly one more fits again (the allocation's collection frees it).
    kept.remove(1);
    let again = blob(&mut m, t, LEN, 77).expect("room after dropping a root");
    assert_eq!(heap.large_object_count(), kept.len() + 1);
    check_blob(&m, &again, LEN, 77);
    check_blob(&m, &kept[0], LEN, 0);
    check_blob(&m, &kept[1], LEN, 2);
    assert!(blob(&mut m, t, LEN, 78).is_err());
    // Free all: the whole space is usable again, as one range.
    drop((kept, again));
    let whole = m
        .alloc(t.bytes, MIB - page)
        .expect("the freed ranges merged");
    assert_eq!(heap.large_object_count(), 1);
    drop(whole);
    m.collect();
    let report = m.verify().unwrap();
    assert_eq!((report.large_objects, heap.large_object_bytes()), (0, 0));
}

#[test]
fn after_bytes_trigger_collects_before_the_heap_is_full() {
    const GARBAGE: usize = 4 * MIB;
    let run = |trigger| {
        let (heap, t) = heap(HeapConfig {
            trigger,
            ..HeapConfig::new(64 * MIB)
        });
        let mut m = heap.bind_mutator().unwrap();
        let keep = m.alloc(t.node, 0).unwrap();
        m.write_word(m.get(&keep), 2, 5);
        for _ in 0..GARBAGE / 32 {
            drop(m.alloc(t.node, 0).unwrap());
        }
        assert_eq!(m.read_word(m.get(&keep), 2), 5);
        m.blocking(|| heap.wait_idle());
        let log = heap.pause_log();
        for r in log
            .records()
            .iter()
            .filter(|r| r.kind == "full" || r.kind == "flip")
        {
            assert!(r.live_objects >= 1);
        }
        log.collections()
    };
    assert_eq!(run(GcTrigger::WhenFull), 0, "4 MiB fit in 64 MiB");
    let n = run(GcTrigger::AfterBytes(256 << 10));
    eprintln!("AfterBytes(256 KiB): {n} collections for 4 MiB of garbage");
    assert!(
        (10..=GARBAGE / (256 << 10) + 1).contains(&n),
        "{n} collections for 4 MiB at one per 256 KiB"
    );
}

/// Regression: an object of at most a quarter TLAB was once only ever placed in a
/// fresh whole TLAB, so once less than a TLAB was free after the full collection,
/// `alloc` reported `OutOfMemory` although the object fit.
#[test]
fn out_of_memory_means_the_object_did_not_fit() {
    let cfg = HeapConfig {
        tlab_size: MIB,
        ..HeapConfig::new(4 * MIB)
    };
    let (heap, t) = heap(cfg);
    let mut m = heap.bind_mutator().unwrap();
    // Root 3.5 MiB of nodes, fill the rest with garbage, then root nodes until
    // allocation fails. A correct heap fails only once the whole 4 MiB is live.
    let mut kept: Vec<Handle> = (0..(7 * MIB / 2) / 32)
        .map(|_| m.alloc(t.node, 0).unwrap())
        .collect();
    for _ in 0..(MIB / 2) / 32 {
        drop(m.alloc(t.node, 0).unwrap());
    }
    let err = loop {
        match m.alloc(t.node, 0) {
            Ok(h) => kept.push(h),
            Err(e) => break e,
        }
        assert!(kept.len() <= 4 * MIB / 32, "never ran out");
    };
    let GcErrorKind::OutOfMemory {
        requested,
        capacity,
        live,
    } = *err.kind()
    else {
        panic!("expected OutOfMemory, got {err:?}")
    };
    assert_eq!(requested, 32);
    assert!(
        live + requested > capacity,
        "out of memory for {requested} bytes with {} of {capacity} bytes free",
        capacity - live
    );
    assert_eq!(live, kept.len() * 32);
}
