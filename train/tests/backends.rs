//! burn's two CPU backends train alike: from the same weights on the same
//! batch, flex (the default) and ndarray give the same losses before and
//! after AdamW steps.

mod support;

use burn::tensor::Device;
use grandmaitre_model::Backend;
use support::assert_same_training;

#[test]
fn flex_and_ndarray_give_the_same_losses_from_the_same_weights() {
    let ndarray = Backend::NdArray
        .device(false)
        .expect("ndarray is always built");
    assert_same_training([("flex", Device::flex()), ("ndarray", ndarray)]);
}
