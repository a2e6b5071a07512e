//! Peak resident memory of this process: `VmHWM` from `/proc/self/status`, reset
//! between runs by writing `5` to `/proc/self/clear_refs`.

/// Resets the peak-RSS mark to the current RSS; false if the kernel refused.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The peak RSS since the last [`reset_peak`] (or process start), in bytes, if readable.
pub fn peak_bytes() -> Option<u64> {
    crate::host::kb_field(&std::fs::read_to_string("/proc/self/status").ok()?, "VmHWM")
}

#[cfg(test)]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn peak_is_readable_and_at_least_a_fresh_buffer() {
        let _ = super::reset_peak();
        // black_box: a release build would otherwise never allocate the buffer.
        let buf = std::hint::black_box(vec![1u8; 32 << 20]);
        let peak = super::peak_bytes().unwrap();
        assert!(peak >= buf.len() as u64, "{peak}");
        drop(buf);
    }
}
