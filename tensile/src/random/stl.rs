//! PyTorch's CPU `topk` (`ATen/native/TopKImpl.h`) as its libstdc++ algorithms run it, for
//! `multinomial` without replacement: which of several equal keys come out, and in which
//! order, is decided by `std::nth_element`, `std::sort` and `std::partial_sort` (GCC's
//! introselect, introsort and heap select), so the same steps are taken here.

/// `std::__lg`.
fn lg(n: usize) -> usize {
    (usize::BITS - 1 - n.leading_zeros()) as usize
}

fn move_median_to_first<T: Copy>(
    v: &mut [T],
    result: usize,
    a: usize,
    b: usize,
    c: usize,
    comp: &impl Fn(&T, &T) -> bool,
) {
    let pick = if comp(&v[a], &v[b]) {
        if comp(&v[b], &v[c]) {
            b
        } else if comp(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if comp(&v[a], &v[c]) {
        a
    } else if comp(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(result, pick);
}

/// `__unguarded_partition(first, last, pivot)`.
fn unguarded_partition<T: Copy>(
    v: &mut [T],
    mut first: usize,
    mut last: usize,
    pivot: usize,
    comp: &impl Fn(&T, &T) -> bool,
) -> usize {
    loop {
        while comp(&v[first], &v[pivot]) {
            first += 1;
        }
        last -= 1;
        while comp(&v[pivot], &v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

/// `__unguarded_partition_pivot`: median of three moved to `first`, then partition.
fn partition_pivot<T: Copy>(
    v: &mut [T],
    first: usize,
    last: usize,
    comp: &impl Fn(&T, &T) -> bool,
) -> usize {
    let mid = first + (last - first) / 2;
    move_median_to_first(v, first, first + 1, mid, last - 1, comp);
    unguarded_partition(v, first + 1, last, first, comp)
}

/// `__unguarded_linear_insert`.
fn unguarded_linear_insert<T: Copy>(v: &mut [T], mut last: usize, comp: &impl Fn(&T, &T) -> bool) {
    let val = v[last];
    let mut next = last - 1;
    while comp(&val, &v[next]) {
        v[last] = v[next];
        last = next;
        next -= 1;
    }
    v[last] = val;
}

/// `__insertion_sort`.
fn insertion_sort<T: Copy>(v: &mut [T], first: usize, last: usize, comp: &impl Fn(&T, &T) -> bool) {
    if first == last {
        return;
    }
    for i in first + 1..last {
        if comp(&v[i], &v[first]) {
            let val = v[i];
            v.copy_within(first..i, first + 1);
            v[first] = val;
        } else {
            unguarded_linear_insert(v, i, comp);
        }
    }
}

/// `__adjust_heap` (with `__push_heap`) on the heap `v[first..first + len]`.
fn adjust_heap<T: Copy>(
    v: &mut [T],
    first: usize,
    mut hole: usize,
    len: usize,
    value: T,
    comp: &impl Fn(&T, &T) -> bool,
) {
    let top = hole;
    let mut second = hole;
    while second < (len.saturating_sub(1)) / 2 {
        second = 2 * (second + 1);
        if comp(&v[first + second], &v[first + second - 1]) {
            second -= 1;
        }
        v[first + hole] = v[first + second];
        hole = second;
    }
    if len & 1 == 0 && len >= 2 && second == (len - 2) / 2 {
        second = 2 * (second + 1);
        v[first + hole] = v[first + second - 1];
        hole = second - 1;
    }
    // __push_heap
    let mut parent = hole.wrapping_sub(1) / 2;
    while hole > top && comp(&v[first + parent], &value) {
        v[first + hole] = v[first + parent];
        hole = parent;
        parent = hole.wrapping_sub(1) / 2;
    }
    v[first + hole] = value;
}

fn make_heap<T: Copy>(v: &mut [T], first: usize, last: usize, comp: &impl Fn(&T, &T) -> bool) {
    let len = last - first;
    if len < 2 {
        return;
    }
    let mut parent = (len - 2) / 2;
    loop {
        let value = v[first + parent];
        adjust_heap(v, first, parent, len, value, comp);
        if parent == 0 {
            return;
        }
        parent -= 1;
    }
}

/// `__pop_heap(first, last, result)`.
fn pop_heap<T: Copy>(
    v: &mut [T],
    first: usize,
    last: usize,
    result: usize,
    comp: &impl Fn(&T, &T) -> bool,
) {
    let value = v[result];
    v[result] = v[first];
    adjust_heap(v, first, 0, last - first, value, comp);
}

fn heap_select<T: Copy>(
    v: &mut [T],
    first: usize,
    middle: usize,
    last: usize,
    comp: &impl Fn(&T, &T) -> bool,
) {
    make_heap(v, first, middle, comp);
    for i in middle..last {
        if comp(&v[i], &v[first]) {
            pop_heap(v, first, middle, i, comp);
        }
    }
}

fn sort_heap<T: Copy>(v: &mut [T], first: usize, mut last: usize, comp: &impl Fn(&T, &T) -> bool) {
    while last - first > 1 {
        last -= 1;
        pop_heap(v, first, last, last, comp);
    }
}

/// `std::partial_sort(first, middle, last)`.
pub(crate) fn partial_sort<T: Copy>(v: &mut [T], middle: usize, comp: &impl Fn(&T, &T) -> bool) {
    let last = v.len();
    heap_select(v, 0, middle, last, comp);
    sort_heap(v, 0, middle, comp);
}

/// `std::nth_element(first, nth, last)`: GCC's introselect.
pub(crate) fn nth_element<T: Copy>(v: &mut [T], nth: usize, comp: &impl Fn(&T, &T) -> bool) {
    let (mut first, mut last) = (0usize, v.len());
    if first == last || nth == last {
        return;
    }
    let mut depth = lg(last - first) * 2;
    while last - first > 3 {
        if depth == 0 {
            heap_select(v, first, nth + 1, last, comp);
            v.swap(first, nth);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, comp);
        if cut <= nth {
            first = cut;
        } else {
            last = cut;
        }
    }
    insertion_sort(v, first, last, comp);
}

const THRESHOLD: usize = 16;

fn introsort_loop<T: Copy>(
    v: &mut [T],
    first: usize,
    mut last: usize,
    mut depth: usize,
    comp: &impl Fn(&T, &T) -> bool,
) {
    while last - first > THRESHOLD {
        if depth == 0 {
            heap_select(v, first, last, last, comp);
            sort_heap(v, first, last, comp);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, comp);
        introsort_loop(v, cut, last, depth, comp);
        last = cut;
    }
}

/// `std::sort(first, last)` on `v[..len]`: GCC's introsort and final insertion sort.
pub(crate) fn sort<T: Copy>(v: &mut [T], len: usize, comp: &impl Fn(&T, &T) -> bool) {
    if len == 0 {
        return;
    }
    introsort_loop(v, 0, len, lg(len) * 2, comp);
    if len > THRESHOLD {
        insertion_sort(v, 0, THRESHOLD, comp);
        for i in THRESHOLD..len {
            unguarded_linear_insert(v, i, comp);
        }
    } else {
        insertion_sort(v, 0, len, comp);
    }
}

/// The indices `topk(row, k)` (largest, sorted) returns for one row, as PyTorch's CPU kernel
/// computes them (`k >= 1`, no NaN in `row`).
pub(crate) fn topk_indices(row: &[f64], k: usize) -> Vec<i64> {
    let mut q: Vec<(f64, i64)> = row
        .iter()
        .enumerate()
        .map(|(i, &x)| (x, i as i64))
        .collect();
    let comp = |x: &(f64, i64), y: &(f64, i64)| (x.0.is_nan() && !y.0.is_nan()) || x.0 > y.0;
    if k * 64 <= q.len() {
        partial_sort(&mut q, k, &comp);
    } else {
        nth_element(&mut q, k - 1, &comp);
        sort(&mut q, k - 1, &comp);
    }
    q[..k].iter().map(|p| p.1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_a_sort() {
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % 7
        };
        for n in [1usize, 2, 3, 4, 5, 17, 40, 300] {
            let v: Vec<(u64, usize)> = (0..n).map(|i| (next(), i)).collect();
            let by_key = |a: &(u64, usize), b: &(u64, usize)| a.0 < b.0;
            let mut s = v.clone();
            sort(&mut s, n, &by_key);
            assert!(s.windows(2).all(|w| w[0].0 <= w[1].0), "sort {n}");
            for k in 1..=n.min(6) {
                let mut p = v.clone();
                partial_sort(&mut p, k, &by_key);
                let mut want = v.clone();
                want.sort_by_key(|x| x.0);
                assert!(
                    p[..k].iter().zip(&want).all(|(a, b)| a.0 == b.0),
                    "partial {n} {k}"
                );
                let mut e = v.clone();
                nth_element(&mut e, k - 1, &by_key);
                assert_eq!(e[k - 1].0, want[k - 1].0, "nth {n} {k}");
                assert!(e[..k - 1].iter().all(|x| x.0 <= e[k - 1].0));
            }
        }
    }

    #[test]
    fn ties_as_pytorch() {
        // torch.topk(x, k).indices on CPU (torch 2.15): tied keys come out as libstdc++'s
        // introselect / heap select leave them
        assert_eq!(topk_indices(&[0.5, 0.0, 3.0, 0.0, 1.0], 4), [2, 4, 0, 1]);
        let mut x = vec![0.0; 8];
        x[5] = 1.0;
        assert_eq!(topk_indices(&x, 5), [5, 4, 7, 6, 2]);
        assert_eq!(topk_indices(&[0.0; 200], 3), [0, 1, 2]);
        assert_eq!(
            topk_indices(&[0.0; 40], 30),
            [
                26, 10, 2, 1, 3, 6, 7, 8, 9, 5, 21, 22, 23, 24, 25, 20, 27, 28, 29, 30, 31, 32, 33,
                34, 35, 36, 37, 38, 39, 4
            ]
        );
    }
}
