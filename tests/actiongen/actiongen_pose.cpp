// Subjects and the kinematics of the six actions: joint angles as functions of time, turned into
// capsules (limb segments with a radius and a colour) in frame coordinates.
#include "actiongen_priv.hpp"

#include <algorithm>
#include <cmath>

namespace actiongen {

namespace {

constexpr double kPi = 3.14159265358979323846;

struct P2 {
  double x, y;
};
P2 operator+(P2 a, P2 b) { return {a.x + b.x, a.y + b.y}; }
P2 operator*(double s, P2 a) { return {s * a.x, s * a.y}; }

// Unit vector at angle `a` from straight down, turned towards +x when `side` > 0.
P2 limb_dir(double a, double side) { return {side * std::sin(a), std::cos(a)}; }

void hsv_colour(Rng& r, float out[3], double v_lo, double v_hi, double s_hi) {
  const double h = r.uniform(0, 6), s = r.uniform(0, s_hi), v = r.uniform(v_lo, v_hi);
  const int i = static_cast<int>(h) % 6;
  const double f = h - std::floor(h), p = v * (1 - s), q = v * (1 - s * f),
               t = v * (1 - s * (1 - f));
  const double rgb[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
  for (int k = 0; k < 3; ++k)
    out[k] = static_cast<float>(rgb[i][k]);
}

} // namespace

double Rng::uniform(double lo, double hi) {
  s += 0x9E3779B97F4A7C15ull;
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * (static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0));
}

double Rng::normal() {
  const double u1 = uniform(1e-12, 1), u2 = uniform(0, 1);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * kPi * u2);
}

void random_clothes(Rng& r, Subject* s) {
  hsv_colour(r, s->shirt, 0.1, 0.95, 0.9);
  hsv_colour(r, s->trousers, 0.05, 0.8, 0.7);
  hsv_colour(r, s->shoes, 0.02, 0.4, 0.3);
  s->long_sleeves = r.uniform(0, 1) < 0.6;
  s->stripes = r.uniform(0, 1) < 0.3 ? static_cast<int>(r.uniform(3, 8)) : 0;
}

Subject make_subject(int index, uint64_t dataset_seed) {
  Rng r{dataset_seed * 1000003ull + static_cast<uint64_t>(index) * 7919ull + 17};
  Subject s;
  auto vary = [&](double v, double rel) { return v * r.uniform(1 - rel, 1 + rel); };
  s.height = r.uniform(0.55, 0.85);
  s.torso = vary(0.30, 0.12);
  s.neck = vary(0.04, 0.3);
  s.head_r = vary(0.065, 0.15);
  s.upper_arm = vary(0.17, 0.12);
  s.forearm = vary(0.16, 0.12);
  s.thigh = vary(0.245, 0.12);
  s.shin = vary(0.235, 0.12);
  s.shoulder_w = vary(0.11, 0.2);
  s.hip_w = vary(0.07, 0.25);
  s.limb_r = vary(0.035, 0.3);
  s.torso_r = vary(0.07, 0.3);
  s.speed = r.uniform(0.8, 1.25);
  s.energy = r.uniform(0.8, 1.2);
  const double tone = r.uniform(0.25, 0.95);
  s.skin[0] = static_cast<float>(tone);
  s.skin[1] = static_cast<float>(tone * 0.8);
  s.skin[2] = static_cast<float>(tone * 0.65);
  hsv_colour(r, s.hair, 0.02, 0.7, 0.6);
  random_clothes(r, &s);
  return s;
}

// Angles of one instant. Side view: angles from straight down, positive = forward (towards the
// facing direction); knees flex backwards, elbows forwards. Frontal view: positive = outwards.
struct Angles {
  double lean = 0, hip[2] = {0, 0}, knee[2] = {0, 0}, shoulder[2] = {0, 0}, elbow[2] = {0, 0};
  double bob = 0; // pelvis lift, fraction of the body height
  bool frontal = false;
  bool ik_hands = false; // frontal: hands at hand_x/hand_y (relative to the neck, body heights)
  double hand_dx = 0, hand_dy = 0;
};

namespace {

struct Gait {
  double f, hipA, k0, k1, armA, e0, e1, lean, bob;
};

Angles action_angles(int action, double phi, double energy) {
  Angles a;
  const double e = energy;
  // KTH order: boxing, handclapping, handwaving, jogging, running, walking.
  if (action >= 3) {
    static const Gait g[3] = {
        {1.35, 0.50, 0.25, 1.10, 0.45, 1.40, 0.20, 0.12, 0.030}, // jogging
        {1.60, 0.70, 0.30, 1.50, 0.70, 1.50, 0.30, 0.22, 0.045}, // running
        {0.95, 0.38, 0.08, 0.60, 0.30, 0.25, 0.20, 0.03, 0.012}, // walking
    };
    const Gait& q = g[action - 3];
    for (int k = 0; k < 2; ++k) {
      const double psi = phi + k * kPi, other = phi + (1 - k) * kPi;
      a.hip[k] = q.hipA * e * std::sin(psi);
      a.knee[k] = q.k0 + q.k1 * e * std::pow(std::max(0.0, std::cos(psi)), 1.5);
      a.shoulder[k] = q.armA * e * std::sin(other);
      a.elbow[k] = q.e0 + q.e1 * std::max(0.0, std::sin(other));
    }
    a.lean = q.lean * e;
    a.bob = q.bob * e * std::abs(std::sin(phi));
  } else if (action == 0) { // boxing: guard, alternate straight punches, bouncing stance
    a.hip[0] = 0.22;
    a.hip[1] = -0.25;
    a.knee[0] = a.knee[1] = 0.18;
    a.lean = 0.10 + 0.05 * std::sin(phi);
    for (int k = 0; k < 2; ++k) {
      const double p = std::pow(std::max(0.0, std::sin(phi + k * kPi)), 3.0) * std::min(1.0, e);
      a.shoulder[k] = 0.65 + p * 0.95;
      a.elbow[k] = 2.1 * (1 - p) + 0.1 * p;
    }
    a.bob = 0.01 * std::abs(std::sin(2 * phi));
  } else if (action == 2) { // handwaving: both arms swing over the head
    a.frontal = true;
    a.hip[0] = a.hip[1] = 0.06;
    for (int k = 0; k < 2; ++k) {
      a.shoulder[k] = 2.2 + 0.75 * e * std::sin(phi);
      a.elbow[k] = 0.25 + 0.35 * (0.5 - 0.5 * std::sin(phi));
    }
  } else { // handclapping: hands meet in front of the chest
    a.frontal = true;
    a.hip[0] = a.hip[1] = 0.06;
    a.ik_hands = true;
    a.hand_dx = 0.012 + 0.11 * e * (0.5 + 0.5 * std::cos(phi));
    a.hand_dy = 0.17;
  }
  return a;
}

} // namespace

double action_frequency(int action) {
  static const double f[6] = {1.1, 1.8, 0.9, 1.35, 1.6, 0.95};
  return f[action];
}

double action_speed(int action) { // translation, body heights per second
  static const double v[6] = {0, 0, 0, 1.6, 2.6, 0.85};
  return v[action];
}

void figure_capsules(const Subject& s, int action, double phi, const FigurePlace& fp,
                     std::vector<Capsule>* out) {
  const Angles a = action_angles(action, phi, s.energy);
  const double H = fp.height_px, d = fp.facing;
  auto shade = [](const float c[3], double k, Capsule& cap) {
    for (int i = 0; i < 3; ++i)
      cap.rgb[i] = static_cast<float>(c[i] * k);
  };
  auto add = [&](P2 p0, P2 p1, double r, const float c[3], double k, int stripes = 0) {
    Capsule cap;
    cap.x0 = p0.x;
    cap.y0 = p0.y;
    cap.x1 = p1.x;
    cap.y1 = p1.y;
    cap.r = r * H;
    cap.stripes = stripes;
    shade(c, k, cap);
    out->push_back(cap);
  };
  // Legs first in their own frame (pelvis at the origin) to put the lower foot on the ground.
  P2 hip[2], knee[2], ankle[2], toe[2];
  for (int k = 0; k < 2; ++k) {
    const double side = a.frontal ? (k == 0 ? -1.0 : 1.0) : d;
    hip[k] = a.frontal ? P2{side * s.hip_w * H, 0} : P2{0, 0};
    knee[k] = hip[k] + s.thigh * H * limb_dir(a.hip[k], side);
    ankle[k] = knee[k] + s.shin * H * limb_dir(a.hip[k] - a.knee[k], side);
    toe[k] = ankle[k] + P2{(a.frontal ? side * 0.02 : d * 0.07) * H, 0.01 * H};
  }
  const double low = std::max(toe[0].y, toe[1].y) + 0.5 * s.limb_r * H;
  const P2 pelvis{fp.x, fp.ground_y - low - a.bob * H};
  const P2 up{d * std::sin(a.lean), -std::cos(a.lean)};
  const P2 neck = pelvis + s.torso * H * up;
  const P2 head = neck + (s.neck + s.head_r) * H * up;
  P2 sh[2], el[2], hand[2];
  for (int k = 0; k < 2; ++k) {
    const double side = a.frontal ? (k == 0 ? -1.0 : 1.0) : d;
    sh[k] = neck + (a.frontal ? P2{side * s.shoulder_w * H, 0.03 * H} : 0.06 * H * P2{-up.x, -up.y});
    if (a.ik_hands) {
      // Two-link inverse kinematics, elbow pointing outwards and down.
      hand[k] = neck + P2{side * a.hand_dx * H, a.hand_dy * H};
      const double dx = hand[k].x - sh[k].x, dy = hand[k].y - sh[k].y;
      const double l1 = s.upper_arm * H, l2 = s.forearm * H;
      const double dist = std::min(std::sqrt(dx * dx + dy * dy), 0.999 * (l1 + l2));
      const double c = std::clamp((l1 * l1 + dist * dist - l2 * l2) / (2 * l1 * dist), -1.0, 1.0);
      const double base = std::atan2(dy, dx), off = std::acos(c);
      const double ang = base + (side < 0 ? off : -off);
      el[k] = sh[k] + P2{l1 * std::cos(ang), l1 * std::sin(ang)};
      // keep the forearm length: hand on the line elbow -> target
      const double ex = hand[k].x - el[k].x, ey = hand[k].y - el[k].y;
      const double n = std::max(1e-9, std::sqrt(ex * ex + ey * ey));
      hand[k] = el[k] + P2{l2 * ex / n, l2 * ey / n};
    } else {
      el[k] = sh[k] + s.upper_arm * H * limb_dir(a.shoulder[k] + a.lean, side);
      hand[k] = el[k] + s.forearm * H * limb_dir(a.shoulder[k] + a.lean + a.elbow[k], side);
    }
  }
  const float* sleeve = s.long_sleeves ? s.shirt : s.skin;
  auto leg = [&](int k, double dim) {
    add(pelvis + hip[k], pelvis + knee[k], s.limb_r * 1.25, s.trousers, dim);
    add(pelvis + knee[k], pelvis + ankle[k], s.limb_r * 1.05, s.trousers, dim);
    add(pelvis + ankle[k], pelvis + toe[k], s.limb_r * 0.8, s.shoes, dim);
  };
  auto arm = [&](int k, double dim) {
    add(sh[k], el[k], s.limb_r * 1.1, s.shirt, dim, s.stripes);
    add(el[k], hand[k], s.limb_r * 0.95, sleeve, dim);
    add(hand[k], hand[k], s.limb_r * 1.1, s.skin, dim);
  };
  const double far = a.frontal ? 1.0 : 0.78;
  if (!a.frontal)
    arm(0, far);
  leg(0, far);
  leg(1, 1.0);
  const P2 coat_end = pelvis + (fp.coat ? 0.17 : 0.0) * H * P2{-up.x, -up.y};
  add(coat_end, neck, s.torso_r * (fp.coat ? 1.3 : 1.0), s.shirt, 1.0, s.stripes);
  add(neck, head, s.limb_r * 0.9, s.skin, 0.95);
  add(head, head, s.head_r, s.skin, 1.0);
  add(head + P2{-d * 0.2 * s.head_r * H, -0.35 * s.head_r * H}, head, s.head_r * 0.8, s.hair, 1.0);
  if (a.frontal)
    arm(0, 1.0);
  arm(1, 1.0);
}

} // namespace actiongen
