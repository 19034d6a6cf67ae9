"""Autograd cases of the benchmark suite on PyTorch (mirrored by tensile/examples/bench_train/):
a training step's forward + backward, and the cost of recording one op.

Each case is `name -> (fn, ops_per_call, unit)`; the reported time is the median wall time of one
call divided by `ops_per_call`, and the value is that time in `unit` (`us` or `ns`), so lower is
better (bench/compare.py reports PyTorch's time over tensile's).

* `mlp_fwd_bwd`: a 3-layer MLP (Linear 512→512, ReLU, Linear 512→512, ReLU, Linear 512→512),
  batch 64, float32, loss `out.square().mean()`, then `backward()`; the parameters' `.grad` are
  reset to None before each step (as `optimizer.zero_grad()` does).
* `bert_layer_fwd_bwd`: one all-MiniLM-L6-v2 encoder layer (hidden 384, 12 heads, FFN 1536,
  exact GELU, post-LayerNorm) on a (8, 128, 384) batch: fused QKV linear, heads by view +
  permute, `scaled_dot_product_attention`, output linear + residual + LayerNorm, FFN + residual
  + LayerNorm; loss `out.square().mean()`, then `backward()`.
* `autograd_add_chain`: 100 additions `y = y + c` of 3-element float32 tensors starting from a
  leaf that requires grad (each one records a node); ns per addition.
* `cnn_module_fwd_bwd`: the `train_digits` example's CNN as `nn.Sequential` (Conv2d(1,16,3,
  padding=1), ReLU, MaxPool2d(2), Conv2d(16,32,3,padding=1), ReLU, Flatten, Linear(512,10),
  initialised under `manual_seed(0)`) on a (32, 1, 8, 8) batch: `zero_grad()`, forward,
  `cross_entropy`, `backward()`; µs per step.
* `adamw_step`, `sgd_momentum_step`: one `optimizer.step()` over the MLP's six parameters
  (3 × (512×512 + 512) float32, gradients set once): AdamW(lr=1e-3, weight_decay=0.01) and
  SGD(lr=0.05, momentum=0.9), PyTorch's default (for-loop) implementation on CPU; µs per step.
* `safetensors_roundtrip`: `safetensors.torch.save` of the MLP's six parameters (3 MiB) to bytes
  in memory, then `safetensors.torch.load` of those bytes; µs per round trip.
"""


def train_cases(torch):
    F = torch.nn.functional
    g = torch.Generator().manual_seed(0)

    def rnd(*shape, scale=1.0, grad=False):
        t = ((torch.rand(*shape, generator=g) - 0.5) * scale).requires_grad_(grad)
        return t

    # ---- MLP ----
    x = rnd(64, 512)
    mlp = [(rnd(512, 512, scale=0.1, grad=True), rnd(512, scale=0.1, grad=True)) for _ in range(3)]
    mlp_params = [p for wb in mlp for p in wb]

    def mlp_step():
        for p in mlp_params:
            p.grad = None
        h = x
        for i, (w, b) in enumerate(mlp):
            h = F.linear(h, w, b)
            if i < 2:
                h = F.relu(h)
        loss = h.square().mean()
        loss.backward()
        return loss

    # ---- BERT layer ----
    B, S, H, NH, I = 8, 128, 384, 12, 1536
    HD = H // NH
    xb = rnd(B, S, H)
    P = {
        "qkv_w": rnd(3 * H, H, scale=0.1, grad=True), "qkv_b": rnd(3 * H, scale=0.1, grad=True),
        "o_w": rnd(H, H, scale=0.1, grad=True), "o_b": rnd(H, scale=0.1, grad=True),
        "ln1_w": (1 + rnd(H, scale=0.1)).requires_grad_(), "ln1_b": rnd(H, scale=0.1, grad=True),
        "i_w": rnd(I, H, scale=0.1, grad=True), "i_b": rnd(I, scale=0.1, grad=True),
        "f_w": rnd(H, I, scale=0.1, grad=True), "f_b": rnd(H, scale=0.1, grad=True),
        "ln2_w": (1 + rnd(H, scale=0.1)).requires_grad_(), "ln2_b": rnd(H, scale=0.1, grad=True),
    }

    def bert_step():
        for p in P.values():
            p.grad = None
        qkv = F.linear(xb, P["qkv_w"], P["qkv_b"]).view(B, S, 3, NH, HD).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        ctx = F.scaled_dot_product_attention(q, k, v)
        ctx = ctx.permute(0, 2, 1, 3).reshape(B, S, H)
        a = F.layer_norm(F.linear(ctx, P["o_w"], P["o_b"]) + xb, [H], P["ln1_w"], P["ln1_b"], 1e-12)
        f = F.gelu(F.linear(a, P["i_w"], P["i_b"]))
        o = F.layer_norm(F.linear(f, P["f_w"], P["f_b"]) + a, [H], P["ln2_w"], P["ln2_b"], 1e-12)
        loss = o.square().mean()
        loss.backward()
        return loss

    # ---- recording overhead ----
    leaf = rnd(3, grad=True)
    c = rnd(3)

    def chain():
        y = leaf
        for _ in range(100):
            y = y + c
        return y

    # ---- the digits CNN as modules ----
    nn = torch.nn
    torch.manual_seed(0)
    cnn = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(512, 10),
    )
    xc = rnd(32, 1, 8, 8) + 0.5
    yc = (torch.arange(32) * 7) % 10

    def cnn_step():
        cnn.zero_grad()
        loss = F.cross_entropy(cnn(xc), yc)
        loss.backward()
        return loss

    # ---- optimizers over the MLP's parameters ----
    opt_params = [p.detach().clone().requires_grad_() for p in mlp_params]
    for p in opt_params:
        p.grad = rnd(*p.shape, scale=0.01)
    adamw = torch.optim.AdamW(opt_params, lr=1e-3, weight_decay=0.01)
    sgd = torch.optim.SGD(opt_params, lr=0.05, momentum=0.9)

    # ---- checkpoint bytes ----
    from safetensors.torch import load as st_load, save as st_save
    named = {f"p{i}": p.detach() for i, p in enumerate(mlp_params)}

    def st_roundtrip():
        return st_load(st_save(named))

    return {
        "mlp_fwd_bwd": (mlp_step, 1, "us"),
        "bert_layer_fwd_bwd": (bert_step, 1, "us"),
        "autograd_add_chain": (chain, 100, "ns"),
        "cnn_module_fwd_bwd": (cnn_step, 1, "us"),
        "adamw_step": (adamw.step, 1, "us"),
        "sgd_momentum_step": (sgd.step, 1, "us"),
        "safetensors_roundtrip": (st_roundtrip, 1, "us"),
    }
