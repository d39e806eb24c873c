"""Bodies and motions of the second action generator: a 3-D skeleton (joint positions in metres,
y up, z towards the camera) posed by the six KTH actions as functions of the gait or gesture phase,
seen from a yaw angle. Subjects differ in proportions (child to heavy adult), clothing (tight, loose
coat, dress, baggy trousers; textures from photographs), cadence, amplitude and style.

Independent of tests/actiongen (the first generator: 2-D capsule figures): other kinematics (3-D
joints, viewpoints), other proportions and clothes.
"""
import math

import numpy as np

ACTIONS = ["boxing", "handclapping", "handwaving", "jogging", "running", "walking"]
LOCOMOTION = {"jogging": (1.4, 1.6), "running": (2.2, 3.3), "walking": (0.9, 1.3)}  # cadence Hz, speed m/s


class Subject:
    """Fixed per person: proportions, clothes, style."""

    def __init__(self, index, seed):
        r = np.random.default_rng(seed * 7919 + index)
        self.rng_seed = int(r.integers(1 << 31))
        self.height = r.uniform(1.2, 1.95)  # metres: children to tall adults
        h = self.height
        self.leg = h * r.uniform(0.44, 0.5)
        self.thigh = self.leg * r.uniform(0.48, 0.54)
        self.shin = self.leg - self.thigh
        self.torso = h * r.uniform(0.28, 0.32)
        self.neck = h * 0.04
        self.head = h * r.uniform(0.06, 0.075)  # radius
        self.upper_arm = h * r.uniform(0.17, 0.2)
        self.forearm = h * r.uniform(0.15, 0.18)
        self.shoulder = h * r.uniform(0.1, 0.13)
        self.hip = h * r.uniform(0.06, 0.09)
        self.girth = r.uniform(0.8, 1.6)  # width factor of limbs and torso (slim to heavy)
        self.cadence = r.uniform(0.8, 1.2)
        self.amplitude = r.uniform(0.75, 1.25)
        self.guard = r.uniform(0.6, 1.2)  # boxing guard height, clapping height, waving style
        self.clothes = ["tight", "coat", "dress", "baggy"][int(r.integers(4))]
        self.texture_seed = int(r.integers(1 << 31))
        self.contrast = r.uniform(0.35, 1.0)  # clothing pulled towards the background's mean


def _rot_x(v, a):
    """Rotates (x, y, z) about the x axis (swing forward is towards -z... +z: towards the camera
    for a person facing the camera)."""
    x, y, z = v
    return np.array([x, y * math.cos(a) - z * math.sin(a), y * math.sin(a) + z * math.cos(a)])


def _limb(start, length, swing, abduct=0.0):
    """End of a limb hanging from `start`, swung forward by `swing` (radians, about x) and out by
    `abduct` (about z)."""
    d = np.array([math.sin(abduct), -math.cos(abduct), 0.0])
    d = _rot_x(d, -swing)
    return start + length * d


def pose(s, action, t, phase0):
    """Joints (dict name -> 3-vector, body frame: x to the body's left-right, y up, z forward) of
    subject `s` doing `action` at time t seconds, and the forward displacement (metres)."""
    A = s.amplitude
    joints = {}
    fwd = 0.0
    lean, bob = 0.0, 0.0
    if action in LOCOMOTION:
        f0, v0 = LOCOMOTION[action]
        f = f0 * s.cadence
        ph = 2 * math.pi * f * t + phase0
        fwd = v0 * s.cadence * t
        k = {"walking": (0.45, 0.35, 0.4, 0.1, 0.03), "jogging": (0.6, 1.0, 0.55, 1.3, 0.05),
             "running": (0.85, 1.4, 0.8, 1.5, 0.08)}[action]
        hip_amp, knee_amp, arm_amp, elbow, bob_amp = k
        lean = {"walking": 0.03, "jogging": 0.12, "running": 0.25}[action]
        bob = bob_amp * abs(math.sin(ph))
        legs = {}
        for side, p in (("l", ph), ("r", ph + math.pi)):
            hs = hip_amp * A * math.sin(p)
            ks = knee_amp * A * max(0.0, math.sin(p + 1.2)) + 0.05
            legs[side] = (hs, ks)
        arms = {"l": (-arm_amp * A * math.sin(ph), elbow), "r": (arm_amp * A * math.sin(ph), elbow)}
    else:
        f = {"boxing": 1.6, "handclapping": 2.2, "handwaving": 1.3}[action] * s.cadence
        ph = 2 * math.pi * f * t + phase0
        sway = 0.03 * math.sin(ph * 0.5)
        legs = {"l": (0.02 + sway, 0.08), "r": (-0.02 - sway, 0.08)}
        arms = {}
    pelvis = np.array([0.0, s.leg + bob, 0.0])
    joints["pelvis"] = pelvis
    up = np.array([0.0, math.cos(lean), math.sin(lean)])
    chest = pelvis + s.torso * up
    joints["chest"] = chest
    joints["head"] = chest + (s.neck + s.head) * up
    for side, sx in (("l", -1), ("r", 1)):
        hip = pelvis + np.array([sx * s.hip, 0, 0])
        hs, ks = legs[side]
        knee = _limb(hip, s.thigh, hs)
        ankle = _limb(knee, s.shin, hs - ks)
        joints["hip_" + side], joints["knee_" + side], joints["ankle_" + side] = hip, knee, ankle
        sh = chest + np.array([sx * s.shoulder, -0.03 * s.height, 0])
        joints["shoulder_" + side] = sh
        if action in LOCOMOTION:
            sw, el = arms[side]
            elbow = _limb(sh, s.upper_arm, sw, sx * 0.08)
            wrist = _limb(elbow, s.forearm, sw + el, sx * 0.05)
        elif action == "boxing":
            # Alternate punches: one arm extends forward at guard height while the other retracts.
            p = ph + (0 if side == "l" else math.pi)
            ext = max(0.0, math.sin(p)) ** 2 * A
            g = s.guard
            elbow = sh + np.array([sx * 0.05, -0.12 * g + 0.1 * ext, 0.12 + 0.15 * ext]) * s.height
            wrist = sh + np.array([-sx * 0.02 * (1 - ext), 0.02 * g, 0.12 + 0.3 * ext]) * s.height
        elif action == "handclapping":
            c = 0.5 + 0.5 * math.cos(ph)  # 1: hands apart, 0: together
            g = 0.08 * s.guard
            elbow = sh + np.array([sx * 0.05, -0.13, 0.08]) * s.height
            wrist = np.array([sx * (0.01 + 0.13 * c * A) * s.height, sh[1] + (g - 0.02) * s.height,
                              0.2 * s.height])
        else:  # handwaving: both arms above the head, swinging out and in
            w = math.sin(ph) * 0.45 * A
            up_a = math.pi * (0.78 + 0.1 * s.guard)
            elbow = _limb(sh, s.upper_arm, 0.0, sx * (up_a - 0.5 + w * 0.5))
            wrist = _limb(elbow, s.forearm, 0.0, sx * (up_a - 0.2 + w))
        joints["elbow_" + side], joints["wrist_" + side] = elbow, wrist
    return joints, fwd


def project(joints, yaw, scale, origin):
    """Joint positions in the image: the body turned by `yaw` about the vertical (0: facing the
    camera, pi/2: its left side seen), orthographic with `scale` pixels per metre, pelvis ground
    point at `origin`; returns name -> (x, y, depth)."""
    c, s = math.cos(yaw), math.sin(yaw)
    out = {}
    for k, (x, y, z) in joints.items():
        xr = c * x + s * z
        zr = -s * x + c * z
        out[k] = (origin[0] + scale * xr, origin[1] - scale * y, zr)
    return out
