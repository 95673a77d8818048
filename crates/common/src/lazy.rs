//! Values built from their source on first use, so a process pays only for
//! the rules a text reaches.
//!
//! A guard holds hundreds of compiled patterns, and a process that answers
//! one line (a host hook, a one-line `check`) reads only a few of them.
//! [`Lazy`] keeps the source text and a build function and runs the build
//! once, on first use, behind a [`std::sync::OnceLock`]: later uses (and other
//! threads) read the built value. Nothing about the value changes, only when
//! it is built, so a verdict is the same either way.
//!
//! ```
//! use palisade_common::lazy::Lazy;
//! fn shout(s: &str) -> String {
//!     s.to_uppercase()
//! }
//! let v = Lazy::new("abc", shout);
//! assert!(!v.is_built());
//! assert_eq!(v.as_str(), "ABC"); // `Deref` reaches the built value
//! assert!(v.is_built());
//! assert_eq!(v.source(), "abc");
//! ```

use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

/// A value built from `source` by `make` the first time it is read.
///
/// `make` must not fail on sources the caller vouches for (built-in rule
/// data a test builds); a source that could fail is built eagerly instead,
/// where the error can be returned.
///
/// ```
/// use palisade_common::lazy::Lazy;
/// let n: Lazy<usize> = Lazy::new("four", |s| s.len());
/// assert_eq!(*n.get(), 4);
/// ```
pub struct Lazy<T> {
    source: Box<str>,
    make: fn(&str) -> T,
    cell: OnceLock<T>,
}

impl<T> Lazy<T> {
    /// A value to build from `source` with `make` on first use.
    ///
    /// ```
    /// use palisade_common::lazy::Lazy;
    /// let v = Lazy::new(String::from("x"), |s| s.repeat(2));
    /// assert_eq!(v.get(), "xx");
    /// ```
    pub fn new(source: impl Into<Box<str>>, make: fn(&str) -> T) -> Lazy<T> {
        Lazy {
            source: source.into(),
            make,
            cell: OnceLock::new(),
        }
    }

    /// A value that is already built (its source is kept for display).
    ///
    /// ```
    /// use palisade_common::lazy::Lazy;
    /// let v = Lazy::built("3", |s| s.len(), 7);
    /// assert!(v.is_built());
    /// assert_eq!(*v.get(), 7);
    /// ```
    pub fn built(source: impl Into<Box<str>>, make: fn(&str) -> T, value: T) -> Lazy<T> {
        let cell = OnceLock::new();
        // A fresh cell is empty, so the value is always stored.
        let _ = cell.set(value);
        Lazy {
            source: source.into(),
            make,
            cell,
        }
    }

    /// The value, built now if this is the first read.
    ///
    /// ```
    /// use palisade_common::lazy::Lazy;
    /// let v = Lazy::new("ab", |s| s.chars().rev().collect::<String>());
    /// assert_eq!(v.get(), "ba");
    /// ```
    pub fn get(&self) -> &T {
        self.cell.get_or_init(|| (self.make)(&self.source))
    }

    /// The source the value is built from.
    ///
    /// ```
    /// use palisade_common::lazy::Lazy;
    /// assert_eq!(Lazy::new("src", |s| s.len()).source(), "src");
    /// ```
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the value has been built.
    ///
    /// ```
    /// use palisade_common::lazy::Lazy;
    /// let v = Lazy::new("a", |s| s.len());
    /// assert!(!v.is_built());
    /// let _ = v.get();
    /// assert!(v.is_built());
    /// ```
    pub fn is_built(&self) -> bool {
        self.cell.get().is_some()
    }
}

impl<T> Deref for Lazy<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.get()
    }
}

impl<T: Clone> Clone for Lazy<T> {
    /// A copy that shares nothing: a built value is cloned, an unbuilt one
    /// is built by the copy on its own first use.
    fn clone(&self) -> Lazy<T> {
        Lazy {
            source: self.source.clone(),
            make: self.make,
            cell: self.cell.clone(),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lazy")
            .field("source", &self.source)
            .field("built", &self.cell.get())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static BUILDS: AtomicUsize = AtomicUsize::new(0);

    fn counted(s: &str) -> usize {
        BUILDS.fetch_add(1, Ordering::SeqCst);
        s.len()
    }

    #[test]
    fn builds_once_on_first_read() {
        let v = Lazy::new("hello", counted);
        let before = BUILDS.load(Ordering::SeqCst);
        assert!(!v.is_built());
        assert_eq!(*v, 5);
        assert_eq!(*v.get(), 5);
        assert_eq!(BUILDS.load(Ordering::SeqCst), before + 1);
        let copy = v.clone();
        assert!(copy.is_built());
        assert_eq!(*copy, 5);
        assert_eq!(BUILDS.load(Ordering::SeqCst), before + 1);
    }

    #[test]
    fn shared_across_threads() {
        let v = std::sync::Arc::new(Lazy::new("abc", |s| s.to_owned()));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let v = v.clone();
                std::thread::spawn(move || v.get().clone())
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().ok().as_deref(), Some("abc"));
        }
    }

    #[test]
    fn is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Lazy<String>>();
    }
}
