//! Kernels: the arithmetic of one tile of positions, channel-last (1×1
//! convolutions, the pair products of the pooled policy head, dense
//! layers, masks, pooling, ReLU, GEMM with bias), and the softmax of the
//! win/draw/loss logits.

use super::{Dense, FoldedConv};
use crate::network::{POOLED_STATISTICS, board_size_scale};

/// A 1×1 convolution of channel-last `input` (`rows` cells) into `output`.
pub(super) fn conv1(conv: &FoldedConv, input: &[f32], output: &mut [f32], rows: usize) {
    debug_assert_eq!(conv.kernel, 1);
    matmul_bias(
        input,
        &conv.weights,
        &conv.bias,
        output,
        rows,
        conv.input,
        conv.output,
    );
}

/// The logits of the moves between two cells of one position: `output[from
/// · cells + to]` = q(from)·k(to) / √D, from channel-last `queries_keys`
/// (`cells` rows of 2D: the query, then the key).
pub(super) fn pair_products(queries_keys: &[f32], cells: usize, output: &mut [f32]) {
    let width = queries_keys.len() / cells;
    let depth = width / 2;
    assert!(width == 2 * depth && output.len() == cells * cells);
    if depth == 0 {
        output.fill(0.0);
        return;
    }
    #[allow(unsafe_code)]
    // SAFETY: the queries are the cells × D matrix at offset 0 (row stride
    // 2D, column stride 1); the keys, read as the D × cells matrix kᵀ, start
    // at offset D (row stride 1, column stride 2D): every element read lies
    // below cells · 2D = `queries_keys.len()`. The output is cells × cells,
    // row-major, exactly `output`, which does not alias the input.
    unsafe {
        gemm::gemm(
            cells,
            cells,
            depth,
            output.as_mut_ptr(),
            1,
            cells as isize,
            false,
            queries_keys.as_ptr(),
            1,
            width as isize,
            queries_keys.as_ptr().add(depth),
            width as isize,
            1,
            0.0,
            1.0 / (depth as f32).sqrt(),
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

pub(super) fn dense(layer: &Dense, input: &[f32], output: &mut [f32], batch: usize) {
    matmul_bias(
        input,
        &layer.weights,
        &layer.bias,
        output,
        batch,
        layer.input,
        layer.output,
    );
}

/// Zeroes the cells off the board of channel-last `values` (`mask` empty:
/// the board fills the grid).
pub(super) fn apply_mask(values: &mut [f32], mask: &[f32], channels: usize) {
    if mask.is_empty() {
        return;
    }
    for (row, &on_board) in values.chunks_exact_mut(channels).zip(mask) {
        if on_board == 0.0 {
            row.fill(0.0);
        }
    }
}

/// Global pooling of non-negative channel-last `features` over each
/// position's board (see [`crate::network`]): `batch × [means, scaled means,
/// maxima]`, each `channels` long.
pub(super) fn pool(
    features: &[f32],
    mask: &[f32],
    board_cells: &[f32],
    channels: usize,
    pooled: &mut Vec<f32>,
) {
    let batch = board_cells.len();
    let cells = features.len() / channels / batch.max(1);
    resize(pooled, batch * POOLED_STATISTICS * channels);
    for (b, out) in pooled
        .chunks_exact_mut(POOLED_STATISTICS * channels)
        .enumerate()
    {
        let (sums, rest) = out.split_at_mut(channels);
        let (scaled, maxima) = rest.split_at_mut(channels);
        sums.fill(0.0);
        maxima.fill(0.0);
        for cell in 0..cells {
            let row = b * cells + cell;
            if !mask.is_empty() && mask[row] == 0.0 {
                continue;
            }
            let values = &features[row * channels..(row + 1) * channels];
            for ((sum, max), &value) in sums.iter_mut().zip(maxima.iter_mut()).zip(values) {
                *sum += value;
                *max = max.max(value);
            }
        }
        let count = board_cells[b].max(1.0);
        let scale = board_size_scale(board_cells[b]);
        for (mean, scaled) in sums.iter_mut().zip(scaled.iter_mut()) {
            *mean /= count;
            *scaled = *mean * scale;
        }
    }
}

pub(super) fn relu_in_place(values: &mut [f32]) {
    for value in values {
        *value = value.max(0.0);
    }
}

pub(super) fn resize(buffer: &mut Vec<f32>, len: usize) {
    if buffer.len() != len {
        buffer.resize(len, 0.0);
    }
}

/// `output[m×n] = lhs[m×k] · rhs[k×n] + bias[n]`, all row-major, on the
/// calling thread.
pub(super) fn matmul_bias(
    lhs: &[f32],
    rhs: &[f32],
    bias: &[f32],
    output: &mut [f32],
    m: usize,
    k: usize,
    n: usize,
) {
    assert!(bias.len() == n && output.len() >= m * n);
    for row in output[..m * n].chunks_exact_mut(n) {
        row.copy_from_slice(bias);
    }
    gemm_into((lhs, k), rhs, (output, n), (m, k, n), true);
}

/// `output[m×n] = lhs[m×k] · rhs[k×n]` on the calling thread, all
/// row-major, the rows of `lhs` and `output` `lhs_stride` and
/// `output_stride` apart (at least k and n: the rows of several products
/// may interleave).
pub(super) fn matmul(
    (lhs, lhs_stride): (&[f32], usize),
    rhs: &[f32],
    (output, output_stride): (&mut [f32], usize),
    (m, k, n): (usize, usize, usize),
) {
    if k == 0 {
        for row in 0..m {
            output[row * output_stride..][..n].fill(0.0);
        }
    }
    gemm_into(
        (lhs, lhs_stride),
        rhs,
        (output, output_stride),
        (m, k, n),
        false,
    );
}

/// `output += lhs · rhs` (`accumulate`) or `output = lhs · rhs`.
fn gemm_into(
    (lhs, lhs_stride): (&[f32], usize),
    rhs: &[f32],
    (output, output_stride): (&mut [f32], usize),
    (m, k, n): (usize, usize, usize),
    accumulate: bool,
) {
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    assert!(lhs_stride >= k && output_stride >= n);
    assert!(lhs.len() >= (m - 1) * lhs_stride + k && rhs.len() >= k * n);
    assert!(output.len() >= (m - 1) * output_stride + n);
    #[allow(unsafe_code)]
    // SAFETY: the assertions above keep every access of the m×k, k×n and
    // m×n row-major matrices (column stride 1, row strides `lhs_stride`, n,
    // `output_stride`) inside the slices, and `output` does not alias the
    // inputs (it is borrowed mutably).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            output.as_mut_ptr(),
            1,
            output_stride as isize,
            accumulate,
            lhs.as_ptr(),
            1,
            lhs_stride as isize,
            rhs.as_ptr(),
            1,
            n as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Softmax of three logits.
pub fn softmax3(logits: [f32; 3]) -> [f32; 3] {
    let max = logits[0].max(logits[1]).max(logits[2]);
    let e = logits.map(|l| (l - max).exp());
    let total = e[0] + e[1] + e[2];
    e.map(|x| x / total)
}
