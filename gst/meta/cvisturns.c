/* GPU turns (cvisturns.h): one FIFO of waiting frames per device. A released slot is handed to
 * the oldest waiter directly, so a thread that releases and asks again at once cannot overtake. */
#include <gst/cvis/cvisturns.h>

#define MAX_DEVICES 16

typedef struct {
  GCond cond;
  gboolean go;
} Waiter;

typedef struct {
  GMutex lock;                  /* statically allocated: needs no init */
  gboolean set;                 /* FALSE: GST_CVIS_GPU_TURNS_DEFAULT_SLOTS */
  guint slots;                  /* 0: no limit */
  guint busy;                   /* slots held (may exceed `slots` after it was lowered) */
  GQueue waiters;               /* Waiter *, oldest first */
} Turns;

static Turns turns[MAX_DEVICES];

static Turns *
turns_of (gint device)
{
  return device >= 0 && device < MAX_DEVICES ? &turns[device] : NULL;
}

/* With t->lock held. */
static guint
limit (const Turns * t)
{
  return t->set ? t->slots : GST_CVIS_GPU_TURNS_DEFAULT_SLOTS;
}

/* With t->lock held. */
static void
admit (Turns * t)
{
  while (!g_queue_is_empty (&t->waiters) && (limit (t) == 0 || t->busy < limit (t))) {
    Waiter *w = (Waiter *) g_queue_pop_head (&t->waiters);
    t->busy++;
    w->go = TRUE;
    g_cond_signal (&w->cond);
  }
}

void
gst_cvis_gpu_turns_set_slots (gint device, guint slots)
{
  Turns *t = turns_of (device);
  if (!t)
    return;
  g_mutex_lock (&t->lock);
  t->set = TRUE;
  t->slots = slots;
  admit (t);
  g_mutex_unlock (&t->lock);
}

guint
gst_cvis_gpu_turns_get_slots (gint device)
{
  Turns *t = turns_of (device);
  guint slots;
  if (!t)
    return 0;
  g_mutex_lock (&t->lock);
  slots = limit (t);
  g_mutex_unlock (&t->lock);
  return slots;
}

gboolean
gst_cvis_gpu_turn_acquire (gint device)
{
  Turns *t = turns_of (device);
  Waiter w;
  if (!t)
    return FALSE;
  g_mutex_lock (&t->lock);
  if (limit (t) == 0) {
    g_mutex_unlock (&t->lock);
    return FALSE;
  }
  if (t->busy < limit (t) && g_queue_is_empty (&t->waiters)) {
    t->busy++;
    g_mutex_unlock (&t->lock);
    return TRUE;
  }
  g_cond_init (&w.cond);
  w.go = FALSE;
  g_queue_push_tail (&t->waiters, &w);
  while (!w.go)
    g_cond_wait (&w.cond, &t->lock);
  g_mutex_unlock (&t->lock);
  g_cond_clear (&w.cond);
  return TRUE;
}

void
gst_cvis_gpu_turn_release (gint device)
{
  Turns *t = turns_of (device);
  if (!t)
    return;
  g_mutex_lock (&t->lock);
  if (t->busy > 0)
    t->busy--;
  admit (t);
  g_mutex_unlock (&t->lock);
}
