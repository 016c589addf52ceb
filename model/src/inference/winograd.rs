//! 3×3 convolutions as Winograd's minimal filtering F(4×4, 3×3) (Lavin &
//! Gray 2016, "Fast Algorithms for Convolutional Neural Networks"): each 4×4
//! block of outputs is read from the 6×6 block of inputs around it with 36
//! multiplications per pair of channels instead of 144. The board is cut
//! into such tiles; each input tile is transformed (Bᵀ d B), the 36
//! transformed points each multiply their own weight matrix (G g Gᵀ, folded
//! once) over every tile of the batch ([`point_products`], blocks held in
//! registers; the `gemm` crate where the outputs are not a multiple of 16),
//! and each tile's 36 products are transformed back (Aᵀ m A).
//!
//! On a 15 × 15 board that is 16 tiles × 36 points against 225 cells × 9
//! taps: 3.5 times fewer multiply-adds than the im2col GEMM, the same
//! outputs up to f32 rounding (within 1e-4 of the convolution computed in
//! f64, for sums of up to 288 products of values below 1, in the tests).

use super::kernels::{matmul, resize};

/// Outputs per side of a tile.
const OUT: usize = 4;
/// Inputs per side of a tile (outputs plus the kernel's reach).
const IN: usize = 6;
/// Transformed points per tile.
pub(super) const POINTS: usize = IN * IN;

/// Tiles across a board of `height × width` cells.
pub(super) fn tiles(height: usize, width: usize) -> (usize, usize) {
    (height.div_ceil(OUT), width.div_ceil(OUT))
}

/// Whether Winograd's form costs at most half the multiply-adds of the
/// im2col GEMM on this board (it does from 6 × 6 up; a 5 × 5 board, 4
/// tiles for 25 cells, gains too little for the transforms' cost).
pub(super) fn worth_it(height: usize, width: usize) -> bool {
    let (rows, columns) = tiles(height, width);
    2 * rows * columns * POINTS <= height * width * 9
}

/// The weights of a 3×3 convolution in `[ky][kx]` taps, laid out
/// `[tap][input][output]`, as Winograd's 36 matrices `[point][input][output]`.
pub(super) fn transform_weights(weights: &[f32], input: usize, output: usize) -> Vec<f32> {
    // G, 6 × 3.
    const G: [[f64; 3]; IN] = [
        [1.0 / 4.0, 0.0, 0.0],
        [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
        [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
        [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
        [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
        [0.0, 0.0, 1.0],
    ];
    assert_eq!(weights.len(), 9 * input * output, "3×3 weights");
    let mut transformed = vec![0.0; POINTS * input * output];
    for i in 0..input {
        for o in 0..output {
            let g =
                |ky: usize, kx: usize| f64::from(weights[((ky * 3 + kx) * input + i) * output + o]);
            for (row, g_row) in G.iter().enumerate() {
                for (column, g_column) in G.iter().enumerate() {
                    let mut sum = 0.0;
                    for (ky, gy) in g_row.iter().enumerate() {
                        for (kx, gx) in g_column.iter().enumerate() {
                            sum += gy * g(ky, kx) * gx;
                        }
                    }
                    transformed[((row * IN + column) * input + i) * output + o] = sum as f32;
                }
            }
        }
    }
    transformed
}

/// Scratch buffers of one thread.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// The batch's boards with a border of zeros, tiles' worth.
    padded: Vec<f32>,
    /// Every tile's transformed inputs, `[tile][point][input]`.
    inputs: Vec<f32>,
    /// Every tile's products, `[tile][point][output]`.
    products: Vec<f32>,
    /// One tile's half-transformed values.
    half: Vec<f32>,
    /// One row of a tile's outputs where the tile overhangs the board.
    edge: Vec<f32>,
}

/// Six mutable `n`-vectors of `buffer` at `base + k·stride` (`stride ≥ n`),
/// each exactly `n` long (so that the loops over them need no bounds
/// checks and vectorise).
#[inline(always)]
fn six_mut(buffer: &mut [f32], base: usize, stride: usize, n: usize) -> [&mut [f32]; 6] {
    let (v0, rest) = buffer[base..].split_at_mut(stride);
    let (v1, rest) = rest.split_at_mut(stride);
    let (v2, rest) = rest.split_at_mut(stride);
    let (v3, rest) = rest.split_at_mut(stride);
    let (v4, rest) = rest.split_at_mut(stride);
    [
        &mut v0[..n],
        &mut v1[..n],
        &mut v2[..n],
        &mut v3[..n],
        &mut v4[..n],
        &mut rest[..n],
    ]
}

/// Six `n`-vectors of `buffer` at `base + k·stride`, each exactly `n` long.
#[inline(always)]
fn six(buffer: &[f32], base: usize, stride: usize, n: usize) -> [&[f32]; 6] {
    let at = |k: usize| base + k * stride;
    [
        &buffer[at(0)..at(0) + n],
        &buffer[at(1)..at(1) + n],
        &buffer[at(2)..at(2) + n],
        &buffer[at(3)..at(3) + n],
        &buffer[at(4)..at(4) + n],
        &buffer[at(5)..at(5) + n],
    ]
}

/// Bᵀ·d of the six `n`-vectors at `source[base + k·stride]` into the six
/// at `target[into + k·step]`.
#[inline(always)]
fn input_1d(
    source: &[f32],
    (base, stride): (usize, usize),
    target: &mut [f32],
    (into, step): (usize, usize),
    n: usize,
) {
    let [d0, d1, d2, d3, d4, d5] = six(source, base, stride, n);
    let [o0, o1, o2, o3, o4, o5] = six_mut(target, into, step, n);
    for c in 0..n {
        let (d0, d1, d2, d3, d4, d5) = (d0[c], d1[c], d2[c], d3[c], d4[c], d5[c]);
        o0[c] = 4.0 * d0 - 5.0 * d2 + d4;
        o1[c] = -4.0 * (d1 + d2) + d3 + d4;
        o2[c] = 4.0 * (d1 - d2) - d3 + d4;
        o3[c] = 2.0 * (d3 - d1) - d2 + d4;
        o4[c] = 2.0 * (d1 - d3) - d2 + d4;
        o5[c] = 4.0 * d1 - 5.0 * d3 + d5;
    }
}

/// Aᵀ·m of the six `n`-vectors at `source[base + k·stride]`, plus `bias`
/// if `BIAS`, into four consecutive vectors of `target`.
#[inline(always)]
fn output_1d<const BIAS: bool>(
    source: &[f32],
    (base, stride): (usize, usize),
    bias: &[f32],
    target: &mut [f32],
    n: usize,
) {
    let [m0, m1, m2, m3, m4, m5] = six(source, base, stride, n);
    let (y0, rest) = target[..OUT * n].split_at_mut(n);
    let (y1, rest) = rest.split_at_mut(n);
    let (y2, y3) = rest.split_at_mut(n);
    let (y0, y1, y2, y3) = (&mut y0[..n], &mut y1[..n], &mut y2[..n], &mut y3[..n]);
    let bias = if BIAS { &bias[..n] } else { &[][..] };
    for c in 0..n {
        let (m0, m1, m2, m3, m4, m5) = (m0[c], m1[c], m2[c], m3[c], m4[c], m5[c]);
        let b = if BIAS { bias[c] } else { 0.0 };
        let (sum12, difference12) = (m1 + m2, m1 - m2);
        let (sum34, difference34) = (m3 + m4, m3 - m4);
        y0[c] = m0 + sum12 + sum34 + b;
        y1[c] = difference12 + 2.0 * difference34 + b;
        y2[c] = sum12 + 4.0 * sum34 + b;
        y3[c] = difference12 + 8.0 * difference34 + m5 + b;
    }
}

/// The shapes of one convolution of a batch.
#[derive(Clone, Copy, Debug)]
struct Shape {
    batch: usize,
    height: usize,
    width: usize,
    cin: usize,
    cout: usize,
    tile_rows: usize,
    tile_columns: usize,
}

impl Shape {
    /// Tiles of the batch.
    fn count(&self) -> usize {
        self.batch * self.tile_rows * self.tile_columns
    }

    /// Rows and columns of a padded board: one cell of zeros above and
    /// left, enough below and right for whole tiles.
    fn padded(&self) -> (usize, usize) {
        (OUT * self.tile_rows + 2, OUT * self.tile_columns + 2)
    }
}

/// Defines `$name`, which runs `$body` (an `#[inline(always)]` function)
/// compiled for the widest vectors the CPU has: the transforms' loops over
/// channels vectorise to AVX-512 or AVX2 instead of the baseline's SSE2.
/// Its `@vectors` arm runs `$avx512` or `$avx2` where the CPU has those
/// vectors and says whether it did.
macro_rules! widest_vectors {
    ($name:ident => $body:ident($($argument:ident: $type:ty),*)) => {
        fn $name($($argument: $type),*) {
            if !widest_vectors!(@vectors $body, $body; $($argument: $type),*) {
                $body($($argument),*)
            }
        }
    };
    (@vectors $avx512:expr, $avx2:expr; $($argument:ident: $type:ty),*) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f")]
            fn avx512($($argument: $type),*) {
                $avx512($($argument),*)
            }
            #[target_feature(enable = "avx2,fma")]
            fn avx2($($argument: $type),*) {
                $avx2($($argument),*)
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                #[allow(unsafe_code)]
                // SAFETY: the CPU has AVX-512F, checked just above.
                unsafe { avx512($($argument),*) };
                true
            } else if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                #[allow(unsafe_code)]
                // SAFETY: the CPU has AVX2 and FMA, checked just above.
                unsafe { avx2($($argument),*) };
                true
            } else {
                false
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }};
}

widest_vectors!(transform_inputs => transform_inputs_body(
    shape: Shape,
    input: &[f32],
    padded: &mut [f32],
    half: &mut [f32],
    inputs: &mut [f32]
));

widest_vectors!(transform_outputs => transform_outputs_body(
    shape: Shape,
    products: &[f32],
    bias: &[f32],
    half: &mut [f32],
    edge: &mut [f32],
    output: &mut [f32]
));

/// The padded boards of `input`, then Bᵀ d B of every tile into `inputs`
/// (`[tile][point][input]`).
#[inline(always)]
fn transform_inputs_body(
    shape: Shape,
    input: &[f32],
    padded: &mut [f32],
    half: &mut [f32],
    inputs: &mut [f32],
) {
    let Shape {
        batch,
        height,
        width,
        cin,
        tile_rows,
        tile_columns,
        ..
    } = shape;
    let (padded_height, padded_width) = shape.padded();
    let cells = height * width;
    // The board's rows inside a border of zeros (written each time: the
    // buffer serves convolutions of other widths between calls).
    let row_length = padded_width * cin;
    for (b, board) in padded[..batch * padded_height * row_length]
        .chunks_exact_mut(padded_height * row_length)
        .enumerate()
    {
        board[..row_length].fill(0.0);
        board[(height + 1) * row_length..].fill(0.0);
        for y in 0..height {
            let from = (b * cells + y * width) * cin;
            let row = &mut board[(y + 1) * row_length..(y + 2) * row_length];
            row[..cin].fill(0.0);
            row[cin..(width + 1) * cin].copy_from_slice(&input[from..from + width * cin]);
            row[(width + 1) * cin..].fill(0.0);
        }
    }
    // Down each column, then along each row.
    let row_stride = row_length;
    for b in 0..batch {
        for ty in 0..tile_rows {
            for tx in 0..tile_columns {
                let tile = (b * tile_rows + ty) * tile_columns + tx;
                let corner = ((b * padded_height + OUT * ty) * padded_width + OUT * tx) * cin;
                for j in 0..IN {
                    input_1d(
                        padded,
                        (corner + j * cin, row_stride),
                        half,
                        (j * IN * cin, cin),
                        cin,
                    );
                }
                for i in 0..IN {
                    input_1d(
                        half,
                        (i * cin, IN * cin),
                        inputs,
                        ((tile * POINTS + i * IN) * cin, cin),
                        cin,
                    );
                }
            }
        }
    }
}

/// Aᵀ m A of every tile's `products` (`[tile][point][output]`) plus the
/// bias into channel-last `output`, the cells off the board dropped.
#[inline(always)]
fn transform_outputs_body(
    shape: Shape,
    products: &[f32],
    bias: &[f32],
    half: &mut [f32],
    edge: &mut [f32],
    output: &mut [f32],
) {
    let Shape {
        batch,
        height,
        width,
        cout,
        tile_rows,
        tile_columns,
        ..
    } = shape;
    let cells = height * width;
    for b in 0..batch {
        let board = &mut output[b * cells * cout..(b + 1) * cells * cout];
        for ty in 0..tile_rows {
            for tx in 0..tile_columns {
                let tile = (b * tile_rows + ty) * tile_columns + tx;
                // Down each column of points, then along each row.
                for j in 0..IN {
                    output_1d::<false>(
                        products,
                        ((tile * POINTS + j) * cout, IN * cout),
                        &[],
                        &mut half[j * OUT * cout..],
                        cout,
                    );
                }
                let columns = (width - OUT * tx).min(OUT);
                for y in 0..OUT.min(height - OUT * ty) {
                    let source = (y * cout, OUT * cout);
                    let first = ((OUT * ty + y) * width + OUT * tx) * cout;
                    if columns == OUT {
                        output_1d::<true>(
                            half,
                            source,
                            bias,
                            &mut board[first..first + OUT * cout],
                            cout,
                        );
                    } else {
                        output_1d::<true>(half, source, bias, edge, cout);
                        board[first..first + columns * cout]
                            .copy_from_slice(&edge[..columns * cout]);
                    }
                }
            }
        }
    }
}

/// Every tile's products with the weights of each point, `products[tile]
/// [point]` = `inputs[tile][point]` · `weights[point]` (`cin × cout`), by
/// blocks of four tiles and 32 (AVX-512) or 16 (AVX2) outputs held in
/// registers, where `cout` is a multiple of 16 and the CPU has such
/// vectors; false (nothing written) otherwise. The small products of a
/// position or two (16 tiles × 32 × 32 on a 15 × 15 board) cost the
/// general GEMM more in packing than in arithmetic; the sums are the same,
/// each one product at a time in the inputs' order.
fn point_products(
    weights: &[f32],
    inputs: &[f32],
    products: &mut [f32],
    (tiles, cin, cout): (usize, usize, usize),
) -> bool {
    if cout % 16 != 0 {
        return false;
    }
    assert!(weights.len() >= POINTS * cin * cout);
    assert!(inputs.len() >= tiles * POINTS * cin && products.len() >= tiles * POINTS * cout);
    let shape = (tiles, cin, cout);
    widest_vectors!(@vectors point_products_body::<32>, point_products_body::<16>;
        weights: &[f32],
        inputs: &[f32],
        products: &mut [f32],
        shape: (usize, usize, usize)
    )
}

/// [`point_products`] with blocks of `WIDE` outputs (a multiple of 16)
/// where they fit, of 16 where they do not.
#[inline(always)]
fn point_products_body<const WIDE: usize>(
    weights: &[f32],
    inputs: &[f32],
    products: &mut [f32],
    (tiles, cin, cout): (usize, usize, usize),
) {
    for point in 0..POINTS {
        let at = Point {
            weights: &weights[point * cin * cout..(point + 1) * cin * cout],
            inputs,
            point,
            cin,
            cout,
        };
        let mut tile = 0;
        while tile + 4 <= tiles {
            let mut column = 0;
            while column + WIDE <= cout {
                at.block::<4, WIDE>(products, tile, column);
                column += WIDE;
            }
            while column < cout {
                at.block::<4, 16>(products, tile, column);
                column += 16;
            }
            tile += 4;
        }
        for tile in tile..tiles {
            for column in (0..cout).step_by(16) {
                at.block::<1, 16>(products, tile, column);
            }
        }
    }
}

/// The products at one point of [`point_products`]: that point's weights
/// (`cin × cout`) and every tile's inputs.
struct Point<'a> {
    weights: &'a [f32],
    inputs: &'a [f32],
    point: usize,
    cin: usize,
    cout: usize,
}

impl Point<'_> {
    /// `TILES` tiles' products from `tile` on, for `COLUMNS` outputs from
    /// `column` on, summed in registers over the inputs.
    #[inline(always)]
    fn block<const TILES: usize, const COLUMNS: usize>(
        &self,
        products: &mut [f32],
        tile: usize,
        column: usize,
    ) {
        let Self {
            weights,
            inputs,
            point,
            cin,
            cout,
        } = *self;
        let row = |t: usize| (tile + t) * POINTS + point;
        let lhs: [&[f32]; TILES] = std::array::from_fn(|t| &inputs[row(t) * cin..][..cin]);
        let mut sums = [[0.0f32; COLUMNS]; TILES];
        for k in 0..cin {
            let rhs: &[f32; COLUMNS] = weights[k * cout + column..][..COLUMNS]
                .try_into()
                .expect("COLUMNS weights");
            for (sums, lhs) in sums.iter_mut().zip(&lhs) {
                let a = lhs[k];
                for (sum, &w) in sums.iter_mut().zip(rhs) {
                    *sum = a.mul_add(w, *sum);
                }
            }
        }
        for (t, sums) in sums.iter().enumerate() {
            products[row(t) * cout + column..][..COLUMNS].copy_from_slice(sums);
        }
    }
}

/// A 3×3 convolution (zero padding) of channel-last `input` (`batch`
/// boards of `height × width` cells, `cin` channels) into `output` (`cout`
/// channels): `weights` from [`transform_weights`], plus `bias`.
pub(super) fn conv3(
    weights: &[f32],
    bias: &[f32],
    input: &[f32],
    output: &mut [f32],
    (batch, height, width): (usize, usize, usize),
    (cin, cout): (usize, usize),
    scratch: &mut Scratch,
) {
    let cells = height * width;
    assert!(input.len() >= batch * cells * cin && output.len() >= batch * cells * cout);
    assert!(weights.len() == POINTS * cin * cout && bias.len() == cout);
    if batch == 0 || cells == 0 || cout == 0 {
        return;
    }
    let (tile_rows, tile_columns) = tiles(height, width);
    let shape = Shape {
        batch,
        height,
        width,
        cin,
        cout,
        tile_rows,
        tile_columns,
    };
    let count = shape.count();
    let (padded_height, padded_width) = shape.padded();
    resize(
        &mut scratch.padded,
        batch * padded_height * padded_width * cin,
    );
    resize(&mut scratch.inputs, POINTS * count * cin);
    resize(&mut scratch.products, POINTS * count * cout);
    resize(&mut scratch.half, POINTS * cin.max(cout));
    resize(&mut scratch.edge, OUT * cout);
    transform_inputs(
        shape,
        input,
        &mut scratch.padded,
        &mut scratch.half,
        &mut scratch.inputs,
    );
    if !point_products(
        weights,
        &scratch.inputs,
        &mut scratch.products,
        (count, cin, cout),
    ) {
        // One GEMM per point over every tile (rows POINTS apart).
        for point in 0..POINTS {
            matmul(
                (&scratch.inputs[point * cin..], POINTS * cin),
                &weights[point * cin * cout..(point + 1) * cin * cout],
                (&mut scratch.products[point * cout..], POINTS * cout),
                (count, cin, cout),
            );
        }
    }
    transform_outputs(
        shape,
        &scratch.products,
        bias,
        &mut scratch.half,
        &mut scratch.edge,
        output,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 3×3 convolution by definition (zero padding), weights
    /// `[tap][input][output]`.
    fn direct(
        weights: &[f32],
        bias: &[f32],
        input: &[f32],
        (batch, height, width): (usize, usize, usize),
        (cin, cout): (usize, usize),
    ) -> Vec<f32> {
        let mut output = vec![0.0; batch * height * width * cout];
        for b in 0..batch {
            for y in 0..height {
                for x in 0..width {
                    for o in 0..cout {
                        let mut sum = f64::from(bias[o]);
                        for tap in 0..9 {
                            let (ny, nx) =
                                ((y + tap / 3).wrapping_sub(1), (x + tap % 3).wrapping_sub(1));
                            if ny >= height || nx >= width {
                                continue;
                            }
                            for i in 0..cin {
                                sum += f64::from(input[((b * height + ny) * width + nx) * cin + i])
                                    * f64::from(weights[(tap * cin + i) * cout + o]);
                            }
                        }
                        output[((b * height + y) * width + x) * cout + o] = sum as f32;
                    }
                }
            }
        }
        output
    }

    /// Deterministic values in [-1, 1).
    fn values(count: usize, seed: u64) -> Vec<f32> {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0
            })
            .collect()
    }

    #[test]
    fn winograd_gives_the_convolution_on_boards_that_tiles_do_and_do_not_fill() {
        for (shape, channels) in [
            ((1, 8, 8), (32, 32)),
            ((3, 15, 15), (7, 32)),
            ((2, 10, 10), (32, 16)),
            ((2, 5, 9), (3, 5)),
            // Nine tiles, 48 outputs: blocks of four tiles and of one,
            // of 32 outputs and of 16.
            ((1, 9, 9), (5, 48)),
            ((1, 1, 1), (4, 4)),
        ] {
            let (batch, height, width) = shape;
            let (cin, cout) = channels;
            let weights = values(9 * cin * cout, 1);
            let bias = values(cout, 2);
            let input = values(batch * height * width * cin, 3);
            let expected = direct(&weights, &bias, &input, shape, channels);
            let mut output = vec![f32::NAN; expected.len()];
            let mut scratch = Scratch::default();
            // Twice: the buffers kept from the first call change nothing.
            for _ in 0..2 {
                conv3(
                    &transform_weights(&weights, cin, cout),
                    &bias,
                    &input,
                    &mut output,
                    shape,
                    channels,
                    &mut scratch,
                );
                let worst = expected
                    .iter()
                    .zip(&output)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f32::max);
                // Sums of up to 9 · 32 products of values below 1.
                assert!(worst < 1e-4, "{shape:?} {channels:?}: off by {worst}");
            }
        }
    }

    #[test]
    fn winograd_pays_from_six_by_six_up() {
        assert!(!worth_it(5, 5));
        assert!(worth_it(6, 6));
        assert!(worth_it(8, 8));
        assert!(worth_it(10, 10));
        assert!(worth_it(15, 15));
    }
}
