H = {}
# ---- chapter 0
H['0.1'] = ("Every item belongs to exactly one rank, and the first `len % size` ranks get one item more. Try `len = 10, size = 4` on paper: 3, 3, 2, 2.",
"With `base = len / size` and `extra = len % size`, rank `r` starts after `r` blocks of `base` items plus `min(r, extra)` extra ones, and owns `base + 1` items if `r < extra`, else `base`.",
"`let start = r * base + r.min(extra); let count = base + usize::from(r < extra);` then the range `start..start + count`. Check `len < size`: the last ranks get empty ranges, not panics.")
H['0.2'] = ("A collective is called by every rank: the root and the others call different functions, but all of them call one.",
"`world.process_at_rank(0)` is the root. On rank 0: a buffer of `size` values and `gather_into_root`; everywhere else `gather_into` with only the rank's value. Only the root returns `Some`.",
"`let root = world.process_at_rank(0); if world.rank() == 0 { let mut all = vec![0; world.size() as usize]; root.gather_into_root(&value, &mut all[..]); Some(all) } else { root.gather_into(&value); None }`")
H['0.3'] = ("An allreduce leaves the same sum on every rank: one call, no root.",
"Allocate a result of the same length as `values`, call `world.all_reduce_into` with the sum operation, return the result. rsmpi 0.8.2 has no in-place form, so use two buffers.",
"`let mut sum = vec![0.0; values.len()]; world.all_reduce_into(&values[..], &mut sum[..], SystemOperation::sum()); sum` (with `use mpi::collective::SystemOperation;`).")
# ---- chapter 2
H['2.1'] = ("The root sends, everybody else receives: two branches.",
"Branch on `rank == root`. The root loops over every other rank and sends the whole buffer; the others receive from the root into `buf`. The root is random in the tests, so do not assume rank 0.",
"Root: `for r in (0..size).filter(|&r| r != root) { world.process_at_rank(r).send(&buf[..]); }`. Others: `world.process_at_rank(root).receive_into(&mut buf[..]);`.")
H['2.2'] = ("Renumber the ranks so that the root is 0 (`me = (rank - root + size) % size`); then the tree is the same for every root. Draw it for 5 ranks before coding: rank 4 has no partner in every round.",
"Two loops over `mask = 1, 2, 4, ...`. Going up while `mask < size`: a rank with `me & mask != 0` receives from `me - mask` and stops. Then going down from that mask to 1: send to `me + mask` when it is `< size`.",
"Convert a relative rank back with `(rel + root) % size` before `process_at_rank`. Receive: `world.process_at_rank(abs(me - mask)).receive_into(&mut buf[..])`; send: `world.process_at_rank(abs(me + mask)).send(&buf[..])`.")
H['2.3'] = ("A reduce is a broadcast run backwards: values flow up the same tree. Order matters: the test's `First` operation fails if a higher rank's value lands on the left.",
"Keep an accumulator `acc = xs.to_vec()` and a receive buffer of the same length. Reduce towards rank 0 along the binomial tree, then forward rank 0's result to the root (one send and one receive, both skipped when `root == 0`). Only the root returns `Some(acc)`.",
"`op.fold_right_into(&mut acc, &theirs)` puts `theirs` (higher ranks) on the right. If only `Op::First` fails, your order is reversed.")
H['2.4'] = ("Block `r` is `counts[r]` items long and starts where the blocks before it end.",
"`crate::displacements(counts)` gives where each block starts. The root sends each other rank its block and keeps a copy of its own; the others receive into a buffer of `counts[rank]` items.",
"Root: `world.process_at_rank(r).send(&all[start..start + counts[r]])`. Others: `let mut mine = vec![T::default(); counts[rank]]; root.receive_into(&mut mine[..]);`. Lengths 0 occur: a zero-length message is still sent and received.")
H['2.5'] = ("The mirror of 2.4: the blocks travel to the root, which lays them out in rank order.",
"The root allocates the whole result once and receives each block straight into its slice: no copies, no `receive_vec`. It copies its own block in.",
"`world.process_at_rank(r).receive_into(&mut all[start..start + counts[r]])` on the root, `all[mine].copy_from_slice(block)` for its own; the others `send(&block[..])`.")
H['2.6'] = ("In step `s`, every rank passes to the right the block it received in step `s - 1` (its own in step 0); after `p - 1` steps everyone has every block.",
"Neighbours are `(rank + 1) % size` and `(rank - 1 + size) % size`. Keep the block to send next in its own `Vec`, receive into the right slice of the result, then copy that slice into the outgoing `Vec`. At 1 rank there are no steps.",
"Rust will not let you borrow one slice of `all` to send and another to receive at once: hence the separate outgoing `Vec`. `send_receive_into(&outgoing[..], &right, &mut all[block(from)], &left)`, then `outgoing.copy_from_slice(&all[block(from)])`.")
H['2.7'] = ("In step `s`, rank `r` sends to `r + s` and receives from `r - s`: every pair meets exactly once.",
"`n = send.len() / size`; block `b` is `b * n..(b + 1) * n`. Copy your own block first, then one `send_receive_into` per step `s = 1..size`.",
"`let (to, from) = ((rank + s) % size, (rank + size - s) % size);` then `send_receive_into(&send[block(to)], &world.process_at_rank(to), &mut recv[block(from)], &world.process_at_rank(from))`.")
H['2.8'] = ("Nobody may leave before the last rank has entered. In round `k` a rank hears from the rank `2^k` below it: after `ceil(log2 p)` rounds it has heard, indirectly, from everyone.",
"Loop `d = 1, 2, 4, ...` while `d < size`: send a token to `(rank + d) % size` and receive one from `(rank - d + size) % size`, in one call, so that no order can deadlock.",
"A one-byte token is enough: `send_receive_into(&1u8, &dest, &mut token, &src)`. The test sleeps each rank a random time and checks that nobody leaves before the last one entered: a round too few fails at 3 or 5 ranks.")
H['2.9'] = ("After round `d`, rank `r` holds the combination of ranks `r - 2d + 1 ..= r`: the window doubles each round.",
"In each round a rank may have a partner above (`rank + d < size`), below (`rank - d >= 0`), both (one `send_receive_into`) or neither. Send what you held *before* this round's combining: keep it in the send buffer while the receive goes to another.",
"Combine with `op.fold_left_into(&theirs, &mut acc)`: what comes from below goes on the left. Copy `acc` into the outgoing buffer at the start of each round, before you combine.")
# ---- chapter 3
H['3.1'] = ("In step `s`, rank `r` sends chunk `(r - s) mod p` to the right and adds the chunk arriving from the left into chunk `(r - s - 1) mod p`. After `p - 1` steps it holds chunk `(r + 1) mod p` complete.",
"Neighbours `right = (rank + 1) % p` and `left = (rank + p - 1) % p`. One inbox of the largest chunk's length, sliced to each step's chunk; per step, one send-receive and one reduction into place. At 1 rank there are no steps.",
"Keep indices non-negative: `(r + p - s) % p`. The inbox: `chunk_range(len, p, 0).len()` elements. Per step: `send_receive_into(&data[out], &right, &mut inbox[..n], &left)`, then `op.reduce_into(&mut data[into], &inbox[..n])`.")
H['3.2'] = ("The same ring again, now copying instead of adding: each rank starts from the chunk it completed in 3.1.",
"In step `s`, rank `r` sends chunk `(r + 1 - s) mod p` and receives chunk `(r - s) mod p` straight into its place in `data`.",
"`crate::split_chunks(data, out, into)` returns `(&[T], &mut [T])`, so you can send one chunk and receive into another of the same vector. If the test says the vector still holds `-7777`, a chunk was filed in the wrong place (see the planted mistakes below).")
H['3.3'] = ("Cut each step's chunk into segments and post all their receives and sends at once: reduce a segment as soon as it has arrived while the others are still on the wire.",
"Inside `mpi::request::scope`, one immediate receive per inbox segment and one immediate send per outgoing segment; then wait for each receive in order and reduce it into its segment of the chunk; then wait for every send before the scope ends (a dropped request panics).",
"`let recvs: Vec<_> = inbox.chunks_mut(segment).map(|seg| left.immediate_receive_into(scope, seg)).collect();`, the same with `out.chunks(segment)` and `immediate_send`; then `for (recv, mine) in recvs.into_iter().zip(into.chunks_mut(segment))` reduce `recv.wait_for_data()` into `mine`. The tests use segments of 1 to 7 elements.")
H['3.4'] = ("Recursive doubling needs a power of two ranks. With more, fold the extra ranks into their neighbours first and unfold at the end. Draw 5 ranks: extra = 1, rank 0 gives its vector to rank 1 and waits; ranks 1, 2, 3, 4 become 0, 1, 2, 3.",
"`q = 1 << p.ilog2()`, `extra = p - q`. Fold: among the first `2 * extra` ranks, even ones send their vector to the odd one above and sit out. Then `log2 q` rounds with partner `m ^ mask` on the new numbers. Unfold: the odd ones send the result back.",
"A new number `m` maps back to `2m + 1` if `m < extra`, else `m + extra`. Partners exchange whole vectors with one `send_receive_into` per round, and reduce keeping rank order (the lower rank's vector on the left). If 3 and 5 ranks fail but 4 and 8 pass, look at the fold.")
H['3.5'] = ("The cost model already knows both algorithms: ask it.",
"Predict the time of recursive doubling and of the segmented ring for these bytes and ranks, and return the faster one; a tie goes to recursive doubling.",
"Two calls to `crate::cost::predict` and a comparison with `<`, not `<=`. Then run `make bench CH=03` and find the size where the `auto` rows switch from one algorithm's time to the other's.")
# ---- chapter 4
H['4.1'] = ("Do not compute neighbours by hand: the periodic wrap and the edges are what the Cartesian topology is for.",
"`cart.shift(axis, 1)` gives the (source, destination) pair along an axis: rows on axis 0, columns on axis 1. `cart.get_layout()` gives this rank's coordinates and the grid's dimensions.",
"`let (north, south) = cart.shift(0, 1);` and the same on axis 1. The layout's `coords` and `dims` are `Vec<i32>` of length 2: `[l.coords[0], l.coords[1]]`.")
H['4.2'] = ("A row is contiguous in memory; a column is one value every `stride` values.",
"The column starts at padded cell `(1, j)` and continues every `f.stride()` values, for the owned rows only (padded `1..=rows`), never the ghost rows. Unpacking walks the same cells and writes.",
"Padded cell `(i, j)` is `f.data[f.idx(i, j)]`. Without index arithmetic: `f.data[f.idx(1, j)..].iter().step_by(f.stride())` zipped with `out` (and `iter_mut()` to unpack).")
H['4.3'] = ("Every shift moves all edges one way at once. If every rank sends first, large edges deadlock exactly as in chapter 1's ex 1.2: let the coordinate's parity choose the order.",
"Four shifts, each \"send my `to` edge, receive into my `from` ghost buffer\": (South, North), (North, South) on axis 0, (East, West), (West, East) on axis 1. All messages of one shift travel towards `to`, so both the send and the receive use `to.tag()`.",
"Split the borrows first: `let (out, into) = (&halo.send[to as usize], &mut halo.recv[from as usize]);`. The tests use rows of up to 35 KiB at 1 to 8 ranks: an order that only works below the eager limit will hang, and the watchdog will name the call.")
H['4.4'] = ("MPI's send-receive does in one call what 4.3 ordered by hand.",
"The same four shifts; for each, `match (nb.of(to), nb.of(from))` has four arms: both neighbours (one send-receive), send only, receive only, neither.",
"`mpi::point_to_point::send_receive_into_with_tags(&out[..], &dest, tag, &mut into[..], &src, tag)` with `dest = cart.process_at_rank(d)`.")
H['4.5'] = ("Start the exchange, update the cells that need no ghost, then wait and update the boundary.",
"Inside one `mpi::request::scope`: post the four receives and the four sends, update the interior, wait for every request. After the scope: unpack the ghosts and update the boundary; the buffers are borrowed until it ends.",
"Split the borrows before the scope: `let (send, recv) = (&halo.send, &mut halo.recv);` then loop over `SIDES.iter().zip(recv.iter_mut())` for the receives. Requests of one scope have one type, so they fit in one `Vec`; wait for each in a loop. `unpack_into` and `update_boundary` come *after* the scope.")
H['4.6'] = ("Every rank must decide to stop from the same number: a sum over all ranks, on every rank.",
"One allreduce of the local residual with the sum operation, into a second variable.",
"`comm.all_reduce_into(&mine, &mut total, SystemOperation::sum())` (from `mpi::collective::SystemOperation`). rsmpi 0.8.2 has no `MPI_IN_PLACE`: use two variables.")
H['4.7'] = ("Every rank knows every block (the decomposition is the same everywhere), so rank 0 computes all counts and displacements without asking.",
"Each rank packs its owned cells row by row; rank 0 gathers them with a varying-count gather into one buffer, then copies each rank's rows into place in the global grid.",
"`PartitionMut::new(&mut buf[..], &counts[..], &displs[..])` (`mpi::datatype`) for the root's receive. Row `k` of rank `r`'s block is `cc.len()` values at `displs[r] + k * cc.len()`; it goes to global row `rr.start + k`, columns `cc`.")
# ---- chapter 6
H['6.1'] = ("Three small functions that all check the same three things first: the element type is known, it is `T`'s, and the lengths agree. Write that check once, as a private function.",
"`element_type` is one `match` on the tensor's kind. Reading: move the tensor to the CPU, make it contiguous, copy its data into the buffer. Writing: view the buffer as a tensor of the same shape and copy it into the tensor, without recording gradients.",
"Reading: `t.to_device(Device::Cpu).contiguous()` then `copy_data(buf, buf.len())`. Writing: `unsafe { Tensor::from_blob(buf.as_ptr() as *const u8, &t.size(), &[], T::KIND, Device::Cpu) }`, then `tch::no_grad(|| t.copy_(&view))` (the `no_grad` lets it write into parameters).")
H['6.2'] = ("One broadcast for all tensors, not one per tensor: pack them into one flat buffer.",
"Allocate a buffer of the total length on every rank; the root packs its parameters into it; broadcast it from the root; the others unpack it into their parameters.",
"`let mut buf = vec![0f32; flat::total_len(params)];` then `world.process_at_rank(root).broadcast_into(&mut buf[..])` on every rank.")
H['6.3'] = ("Every rank takes every `ranks`-th sample of the epoch's order, starting at its own rank; padding repeats the order from its start so that all ranks get the same count.",
"`samples_per_rank` is `len.div_ceil(ranks)` when padding and `len / ranks` when dropping. The padded order's position `i` is `order[i % order.len()]`, so you never need to build it.",
"Take positions `(rank..per_rank * ranks).step_by(ranks)` and map each to `order[i % order.len()]`. An empty order gives an empty share.")
H['6.4'] = ("The average of the gradients is their sum divided by the number of ranks: an allreduce, then a division.",
"For each gradient tensor: pack it alone into a flat buffer, sum it over the ranks, divide by the rank count, unpack it back.",
"`&mut grads[i..i + 1]` is a one-tensor slice that `flat::pack` and `flat::unpack` accept. Divide by `reducer.ranks() as f32` after the sum, before unpacking. A ratio of exactly p in the test's message means you summed and did not divide.")
H['6.5'] = ("Many small allreduces pay the latency many times: group consecutive tensors into buckets of at most `cap_bytes`.",
"Planning walks the tensor lengths and closes a bucket when the next tensor would overflow it (but a bucket is never empty). Averaging does 6.4's steps once per bucket.",
"Keep the current bucket's start and filled element count; close it when it is not empty and `filled + len > cap_bytes / 4`; close the last one after the loop. Per bucket: `buf.resize(flat::total_len(members), 0.0)`, pack, `sum_in_place`, divide, unpack.")
H['6.6'] = ("A crash in the middle of a save must leave the old checkpoint intact: write elsewhere, then rename.",
"Write the encoded checkpoint to a temporary file next to the target, force it to disk, then rename it over the target. Return every error: a failed save must not look like a good one.",
"The temporary name is the path plus `.tmp` (`path.as_os_str().to_owned()` then `push(\".tmp\")`). `File::create`, `write_all(&ckpt_format::encode(ckpt))`, `sync_all()`, then `std::fs::rename`, each with `?`.")
H['6.7'] = ("Check everything before changing anything: a half-restored model is worse than a refusal.",
"Loading reads the file and decodes it, naming the path in an error. Restoring checks every parameter and momentum entry (names, shapes) in one pass, and copies only when all is well.",
"`std::fs::read` (map its error to `CheckpointError::Io` with the path) then `ckpt_format::decode`. Copy with `Tensor::from_slice(&e.data).view(e.shape.as_slice())`, then `tch::no_grad(|| t.copy_(&values))`.")
# ---- chapter 1 (from its existing single block)
H['1.1'] = ("Rank 0 is different from the others: it sends first, then receives. Everybody else receives first, then forwards what it got (not its own `token` argument).",
"`let (left, right) = crate::neighbours(rank, size);` Rank 0 sends to `right` and receives from `left`; the others receive from `left` and send the received token to `right`. At 1 rank, rank 0's neighbours are rank 0: a receive before the send would wait forever, so return at once.",
"`world.process_at_rank(right).send_with_tag(token, TOKEN_TAG)`; `world.process_at_rank(left).receive_vec_with_tag::<T>(TOKEN_TAG)` returns `(Vec<T>, Status)`; `status.source_rank()` is the sender.")
H['1.2'] = ("Read [the deadlock page](deadlock.md) first: the two obvious orders both deadlock.",
"Let the order depend on `rank % 2`: even ranks send then receive, odd ranks receive then send. Check your idea at 3 ranks on paper: ranks 2 and 0 are both even and neighbours.",
"At 1 rank `theirs` must become a copy of `mine`; no message is needed (and a large blocking send to yourself, before your receive, would wait forever). Otherwise `right.send_with_tag(mine, SHIFT_TAG)` and `left.receive_into_with_tag(theirs, SHIFT_TAG)` in the order the parity says.")
H['1.3'] = ("Post all four operations first, then wait: nothing blocks until everything is in flight.",
"Inside `mpi::request::scope(|scope| { ... })`, two immediate receives and two immediate sends, then `.wait()` on each of the four before the scope ends. Which tag does the message *from* your left neighbour carry? It was sent by that rank *to its right*.",
"`left.immediate_receive_into_with_tag(scope, from_left, TO_RIGHT_TAG)` and `left.immediate_send_with_tag(scope, to_left, TO_LEFT_TAG)`, the same for `right` with the tags swapped. Nothing special at 1 or 2 ranks: the tags keep the two messages apart.")
H['1.4'] = ("A straight line `t = a + b·x` through the samples, weighted so that every sample counts by its relative error: `w = 1/t²`. Then `alpha = a` and `beta = 1/b`.",
"With `W = Σw`, weighted means `x̄ = Σw·x / W` and `t̄ = Σw·t / W`: `b = Σw·(x - x̄)(t - t̄) / Σw·(x - x̄)²` and `a = t̄ - b·x̄`. Centring on the means first keeps the sums small and the rounding error low.",
"Return `None` when all sizes are equal (the denominator is 0) or `b <= 0`. Then run `make run CH=01 BIN=pingpong` to fit your own machine.")
