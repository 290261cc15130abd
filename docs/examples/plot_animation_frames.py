"""
The animation's frames
======================

:func:`baygo_graph.figures.animate_run` animates a run: the graph of each step
beside the agents' MSE curves. :func:`baygo_graph.figures.save_animation` writes
it as a GIF (or an MP4 with ffmpeg); here three of its frames are shown, as
:meth:`~baygo_graph.figures.RunAnimation.iter_frames` renders them.
"""

import matplotlib.pyplot as plt

import baygo_graph as bg
from baygo_graph.figures import animate_run
from baygo_graph.models import LinearRegression

run = bg.simulate("baygo", agents=8, steps=12, model=LinearRegression(grid=31), rng=0)
anim = animate_run(run, steps=range(12), figsize=(8, 3.6))
frames = list(anim.iter_frames(dpi=60))
plt.close(anim.figure)

fig, axes = plt.subplots(3, 1, figsize=(8, 10), layout="constrained")
for ax, step in zip(axes, (0, 5, 11), strict=True):
    ax.imshow(frames[step])
    ax.set_title(f"step {step}")
    ax.axis("off")
