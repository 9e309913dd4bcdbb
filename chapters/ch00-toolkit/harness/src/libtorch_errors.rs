//! LibTorch's errors, made readable in a panic report.
//!
//! A failed LibTorch call in `tch` panics with `called Result::unwrap() on an Err value:
//! Torch("...")`: the C++ message, then `Exception raised from ...` and some thirty
//! `frame #N: ...` lines of C++ backtrace, all on one line (the `Debug` form escapes the
//! newlines). [`fold`] keeps the message and replaces the C++ backtrace by a short note;
//! [`hint`] explains the errors a learner of this course meets.

/// The panic message with LibTorch's C++ backtrace folded into one short note. A message
/// without one is returned as it is.
pub fn fold(message: &str) -> String {
    // The Debug form escapes newlines as `\n`; a Display form has real ones.
    let starts = [
        "\\nException raised from",
        "\nException raised from",
        "\\nframe #",
        "\nframe #",
    ];
    let Some(cut) = starts.iter().filter_map(|s| message.find(s)).min() else {
        return message.to_string();
    };
    let frames = message.matches("frame #").count();
    let head = message[..cut].trim_end();
    // The tail after the backtrace: the closing `")` of `Torch("...")`, if any.
    let close = if message.trim_end().ends_with("\")") {
        "\")"
    } else {
        ""
    };
    format!("{head}{close} [LibTorch's C++ backtrace ({frames} frames) left out]")
}

/// A hint for a LibTorch error a learner of this course meets, from its message.
pub fn hint(message: &str) -> Option<String> {
    let m = message;
    if m.contains("Expected a proper Tensor but got None")
        || m.contains("undefined Tensor")
        || m.contains("Tensor that was not defined")
    {
        return Some(
            "a tensor is undefined, most often a gradient (`x.grad()`) that backward never \
             computed: did the received tensor require grad (`set_requires_grad(true)`) \
             before the forward?"
                .to_string(),
        );
    }
    if m.contains("does not require grad and does not have a grad_fn") {
        return Some(
            "backward() was called on a tensor no gradient can flow from: it was computed \
             from tensors none of which requires grad (a received input without \
             `set_requires_grad(true)`, a `detach()`, or inside `no_grad`)"
                .to_string(),
        );
    }
    if let Some(shapes) = between(m, "mat1 and mat2 shapes cannot be multiplied (", ")") {
        let (a, b) = shapes.split_once(" and ").unwrap_or((shapes, "?"));
        return Some(format!(
            "a matrix product of a {a} tensor by a {b} one: the inner sizes differ; was a \
             tensor received with the wrong shape (`in_shape` and `out_shape` swapped, the \
             rows of another micro-batch)?"
        ));
    }
    if let Some(a) = between(m, "The size of tensor a (", ")") {
        let b = between(m, "size of tensor b (", ")").unwrap_or("?");
        let after = m.split("non-singleton dimension ").nth(1).unwrap_or("?");
        let dim: String = after.chars().take_while(char::is_ascii_digit).collect();
        return Some(format!(
            "two tensors whose sizes differ in dimension {dim} (counted from 0): {a} against \
             {b}; was a tensor received with the wrong shape, or a gradient paired with \
             another micro-batch's output?"
        ));
    }
    let kinds = [
        "expected scalar type",
        "to have the same dtype",
        "must have the same dtype",
    ];
    if kinds.iter().any(|k| m.contains(k)) {
        return Some(
            "two tensors of different kinds met (f32 and f64, say): the course's models are \
             f64 (`Kind::Double`); convert the other one with `.to_kind(Kind::Double)`, or \
             build it from `f64` values"
                .to_string(),
        );
    }
    None
}

/// The text between `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The C++ backtrace's start, as LibTorch 2.11 writes it (frames 0 and 1 of 29).
    const FRAMES: &str = r#"(most recent call first):\nframe #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >) + 0x9d (0x7f840177305d in /work/wt-learner/libtorch/lib/libc10.so)\nframe #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) + 0xc3 (0x7f84017076fd in /work/wt-learner/libtorch/lib/libc10.so)\n"#;

    /// A real panic message (tch 0.24, LibTorch 2.11) of `x.grad().detach()` where `x`
    /// did not require grad: its frames cut to 2 of 29.
    fn undefined() -> String {
        let head = r#"called `Result::unwrap()` on an `Err` value: Torch("Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #0 'self'\nException raised from checked_cast_variable at /pytorch/torch/csrc/autograd/VariableTypeManual.cpp:66 "#;
        format!("{head}{FRAMES}\")")
    }

    /// A real LibTorch error's message with its start of backtrace.
    fn torch(message_and_origin: &str) -> String {
        format!("Torch(\"{message_and_origin} {FRAMES}\")")
    }

    #[test]
    fn the_cpp_backtrace_is_folded_into_one_note() {
        assert_eq!(
            fold(&undefined()),
            r#"called `Result::unwrap()` on an `Err` value: Torch("Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #0 'self'") [LibTorch's C++ backtrace (2 frames) left out]"#
        );
        let display = "boom\nException raised from f at x.h:1\nframe #0: a\nframe #1: b";
        assert_eq!(
            fold(display),
            "boom [LibTorch's C++ backtrace (2 frames) left out]"
        );
        assert_eq!(fold("index out of bounds"), "index out of bounds");
    }

    #[test]
    fn an_undefined_gradient_asks_for_requires_grad() {
        let h = hint(&undefined()).unwrap();
        assert!(h.contains("set_requires_grad(true)"), "{h}");
    }

    #[test]
    fn a_backward_without_grad_is_explained() {
        let m = torch("element 0 of tensors does not require grad and does not have a grad_fn\\nException raised from run_backward at /pytorch/torch/csrc/autograd/autograd.cpp:104");
        assert!(hint(&m).unwrap().contains("none of which requires grad"));
    }

    #[test]
    fn a_shape_mismatch_names_both_shapes() {
        let m = torch("mat1 and mat2 shapes cannot be multiplied (8x12 and 16x12)\\nException raised from meta at /pytorch/aten/src/ATen/native/LinearAlgebra.cpp:205");
        let h = hint(&m).unwrap();
        assert!(h.contains("a 8x12 tensor by a 16x12 one"), "{h}");
        let m = torch("The size of tensor a (12) must match the size of tensor b (16) at non-singleton dimension 1\\nException raised from infer_size_impl at /pytorch/aten/src/ATen/ExpandUtils.cpp:31");
        let h = hint(&m).unwrap();
        assert!(
            h.contains("dimension 1 (counted from 0): 12 against 16"),
            "{h}"
        );
    }

    #[test]
    fn a_kind_mismatch_is_explained() {
        // `a.matmul(&b)` and a linear layer, f64 against f32 (real messages).
        let m = torch("expected m1 and m2 to have the same dtype, but got: double != float\\nException raised from addmm_impl_cpu_ at /pytorch/aten/src/ATen/native/LinearAlgebra.cpp:1404");
        assert!(hint(&m).unwrap().contains("Kind::Double"));
        let m = torch("mat1 and mat2 must have the same dtype, but got Double and Float\\nException raised from meta at /pytorch/aten/src/ATen/native/LinearAlgebra.cpp:195");
        assert!(hint(&m).unwrap().contains("f32 and f64"));
        // The older wording.
        assert!(hint("expected scalar type Double but found Float").is_some());
        assert_eq!(hint("attempt to subtract with overflow"), None);
    }
}
