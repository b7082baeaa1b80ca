// SPDX-License-Identifier: BSD-2-Clause
/*
 * Synthetic recordings: simulate NVMe-oF commands with known component
 * times, sample them with the ABI's hash, and write host and target
 * databases through ntp_db (the collector's writer). See gen.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "ntp_db.h"

const char *const gen_comp_name[GC_N] = {
	"h_blk_sub", "h_drv_sub", "h_r2t", "h_wait", "wire", "t_rx_path",
	"t_drv_sub", "t_data_wait", "t_storage", "t_drv_cpl", "h_rx_path",
	"h_drv_cpl", "h_blk_cpl", "h_handoff", "e2e", "t_e2e",
};

const char *const gen_stage_name[GS_N] = {
	"host_block", "host_driver", "network", "target_driver", "storage", "host_rx",
};

#define NQN "nqn.2026-10.edu.wisc.ntprof:tutorial"
#define WALL0 1792224000000000000LL /* 2026-10-17, the seed's day */
#define NS 1000000000.0

struct machine {
	struct ntp_db *db;
	int64_t mono_base;      /* this machine's CLOCK_MONOTONIC at tau = 0 */
	int64_t wall_base;      /* its CLOCK_REALTIME at tau = 0 */
	double window[2];       /* records [a, b] seconds of tau */
	int64_t next_interval;  /* tau (ns) where the open interval ends */
	uint64_t totals[2][GEN_MAX_HOSTS]; /* per op (read, write) and device */
	int counted;            /* kernel: counts every command */
	int open;               /* recording has started */
};

struct sim {
	const struct gen_config *cfg;
	uint64_t rng;
	struct machine host[GEN_MAX_HOSTS];
	struct machine target[GEN_MAX_TARGETS];
	int ntargets;
	struct gen_result *res;
	uint64_t cap;
};

static uint64_t rnd(struct sim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dULL;
}

static double unit(struct sim *s)
{
	return ((rnd(s) >> 11) + 0.5) / 9007199254740992.0;
}

/* base + an exponential tail of the given mean, in ns */
static int64_t draw(struct sim *s, double base, double tail)
{
	return (int64_t)(base - tail * log(unit(s)));
}

void gen_defaults(struct gen_config *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->seconds = 2;
	c->iops = 10000;
	c->qd = 1;
	c->nqueues = 1;
	c->lba_span = 1ULL << 24;
	c->read_frac = 1;
	c->write_kib = 4;
	c->sample_rate = 1;
	c->host_driver = "kernel";
	c->target_driver = "kernel";
	c->transport = "tcp";
	c->nhosts = 1;
	c->host_window[0] = 0;
	c->host_window[1] = 2;
	c->target_window[0] = -1;
	c->target_window[1] = 3;
	c->target_clock_ns = 3 * 3600 * (int64_t)1000000000; /* hours apart */
	c->wall_error_ns = 2000000;                           /* 2 ms */
	c->interval_s = 1;
}

/* One command's timeline in true time (ns) and its truth. */
struct cmd {
	int64_t h[NTP_H_NPOINTS], t[NTP_T_NPOINTS];
	int is_write, r2t;
};

/* A draw, or FIXED when it is > 0: the draw is made either way, so the
 * other times are those of the same seed without the option. */
static int64_t draw_or(struct sim *s, int64_t fixed, double base, double tail)
{
	int64_t t = draw(s, base, tail);

	return fixed > 0 ? fixed : t;
}

/* A network crossing: the wire, plus the configured jitter (none: no draw,
 * so the same seed gives the same recordings as without the option). */
static int64_t crossing(struct sim *s, double base, double tail)
{
	int64_t t = draw(s, base, tail);

	return s->cfg->jitter_ns ? t + (int64_t)(unit(s) * (double)s->cfg->jitter_ns) : t;
}

/* What stage G adds to a command beyond its draw: the shift (-Y), and the
 * stall (-X) with its probability. Without -X no draw is made, so the same
 * seed gives the same recordings as without the option. */
static int64_t extra(struct sim *s, enum gen_stage g)
{
	int64_t t = s->cfg->shift_ns[g];

	if (s->cfg->stall_prob[g] > 0 && unit(s) < s->cfg->stall_prob[g])
		t += s->cfg->stall_ns[g];
	return t;
}

static void simulate(struct sim *s, struct cmd *c, int64_t start, int spdk_host,
		     int spdk_target)
{
	int64_t now = start;

	memset(c->h, 0, sizeof(c->h));
	memset(c->t, 0, sizeof(c->t));
	if (!spdk_host) {
		c->h[NTP_H_START] = now;
		now += draw(s, 500, 70);
		now += extra(s, GS_HOST_BLOCK);
	}
	c->h[NTP_H_QUEUE] = now;
	now += draw(s, 3000, 300);
	c->h[NTP_H_SENT] = now += extra(s, GS_HOST_DRIVER);
	now += crossing(s, 5000, 150);
	c->t[NTP_T_RX] = now += extra(s, GS_NETWORK);
	c->t[NTP_T_CMD] = now += draw(s, 4000, 500);
	if (c->r2t) {
		c->t[NTP_T_R2T] = now += draw(s, 300, 50);
		c->h[NTP_H_R2T_RX] = now += crossing(s, 5000, 150);
		c->h[NTP_H_DATA_SENT] = now += draw(s, 2000, 200);
		c->t[NTP_T_DATA_RX] = now += crossing(s, 9000, 300);
	}
	now += draw(s, 60, 10);
	c->t[NTP_T_EXEC] = now += extra(s, GS_TARGET_DRIVER);
	now += draw_or(s, s->cfg->storage_ns,
		       (c->is_write ? 20000 : 55000) + (double)s->cfg->storage_delay_ns, 4000);
	c->t[NTP_T_STOR] = now += extra(s, GS_STORAGE);
	c->t[NTP_T_RESP] = now += draw(s, 400, 40);
	c->t[NTP_T_SENT] = now += draw(s, 150, 20);
	if (spdk_target)
		c->t[NTP_T_FREE] = now + draw(s, 200, 20);
	c->h[NTP_H_RX] = now += crossing(s, 5000, 150);
	now += draw_or(s, s->cfg->rx_path_ns, 4300, 100);
	c->h[NTP_H_RX_DRV] = now += extra(s, GS_HOST_RX);
	c->h[NTP_H_CQE] = now += draw(s, 140, 20);
	c->h[NTP_H_COMPLETE] = now += draw(s, 10, 5);
	if (!spdk_host)
		c->h[NTP_H_END] = now + draw(s, 300, 30);
}

/* The truth, straight from the timeline (not through any stored encoding). */
static void truth(const struct cmd *c, int64_t *v)
{
	const int64_t *h = c->h, *t = c->t;
	int64_t first = h[NTP_H_START] ? h[NTP_H_START] : h[NTP_H_QUEUE];
	int64_t last = h[NTP_H_END] ? h[NTP_H_END] : h[NTP_H_COMPLETE];
	int64_t data_wait = c->r2t ? t[NTP_T_DATA_RX] - t[NTP_T_R2T] : 0;
	int64_t r2t = c->r2t ? h[NTP_H_DATA_SENT] - h[NTP_H_R2T_RX] : 0;

	v[GC_H_BLK_SUB] = h[NTP_H_QUEUE] - first;
	v[GC_H_DRV_SUB] = h[NTP_H_SENT] - h[NTP_H_QUEUE];
	v[GC_H_R2T] = r2t;
	v[GC_H_WAIT] = h[NTP_H_RX] - h[NTP_H_SENT] - r2t;
	v[GC_T_RX_PATH] = t[NTP_T_CMD] - t[NTP_T_RX];
	v[GC_T_DRV_SUB] = t[NTP_T_EXEC] - t[NTP_T_CMD] - data_wait;
	v[GC_T_DATA_WAIT] = data_wait;
	v[GC_T_STORAGE] = t[NTP_T_STOR] - t[NTP_T_EXEC];
	v[GC_T_DRV_CPL] = t[NTP_T_SENT] - t[NTP_T_STOR];
	v[GC_T_E2E] = t[NTP_T_SENT] - t[NTP_T_RX];
	v[GC_WIRE] = v[GC_H_WAIT] - (v[GC_T_E2E] - data_wait);
	v[GC_H_RX_PATH] = h[NTP_H_RX_DRV] - h[NTP_H_RX];
	v[GC_H_DRV_CPL] = h[NTP_H_CQE] - h[NTP_H_RX_DRV];
	v[GC_H_HANDOFF] = h[NTP_H_COMPLETE] - h[NTP_H_CQE];
	v[GC_H_BLK_CPL] = last - h[NTP_H_COMPLETE];
	v[GC_E2E] = last - first;
}

/* A machine's CLOCK_MONOTONIC at true time tau: base + tau, running PPM fast. */
static void to_record(struct ntp_cmd_record *r, const int64_t *pts, int n, int64_t base,
		      double ppm)
{
	for (int i = 0; i < NTP_MAX_POINTS; i++)
		r->ts[i] = i < n && pts[i] ?
			(uint64_t)(pts[i] + base + (int64_t)((double)pts[i] * ppm * 1e-6)) : 0;
}

static int in_window(const struct machine *m, int64_t tau)
{
	return tau >= m->window[0] * NS && tau <= m->window[1] * NS;
}

/* Close machine M's intervals that end at or before TAU. */
static int tick(struct machine *m, int64_t tau, const struct gen_config *cfg)
{
	uint32_t nlb[2] = { 7, cfg->write_kib * 2 - 1 };
	int64_t len = (int64_t)(cfg->interval_s * NS);

	while (m->open && tau >= m->next_interval &&
	       m->next_interval <= (int64_t)(m->window[1] * NS) + len) {
		int64_t stop = m->next_interval;

		for (int dev = 0; dev < GEN_MAX_HOSTS; dev++)
			for (int op = 0; op < 2; op++)
				if (m->counted && m->totals[op][dev] &&
				    ntp_db_count_group(m->db, (uint64_t)dev + 1, op ? 1 : 2,
						       nlb[op], m->totals[op][dev]))
					return -1;
		memset(m->totals, 0, sizeof(m->totals));
		if (ntp_db_end_interval(m->db, m->mono_base + stop - len, m->mono_base + stop) < 0)
			return -1;
		m->next_interval += len;
	}
	return 0;
}

static int open_machine(struct sim *s, struct machine *m, const char *path, int role,
			const char *driver, uint32_t rate, int index)
{
	const struct gen_config *c = s->cfg;
	char err[512], host[32];
	struct ntp_meta meta = {
		.role = role, .driver = driver, .transport = c->transport,
		.hostname = host, .kernel = "6.1.0-synthetic", .sample_rate = rate,
		.command_line = "ntprof-gen (synthetic data)",
	};

	/* one target keeps its old name: the files of the tests do not change */
	snprintf(host, sizeof(host), role == NTP_ROLE_HOST ? "gen-host%d" :
		 index ? "gen-target%d" : "gen-target", index);
	meta.wall_start = m->wall_base + (int64_t)(m->window[0] * NS);
	meta.mono_start = m->mono_base + (int64_t)(m->window[0] * NS);
	m->counted = !strcmp(driver, "kernel");
	m->next_interval = (int64_t)(m->window[0] * NS) + (int64_t)(c->interval_s * NS);
	m->db = ntp_db_create(path, &meta, NTP_DB_FORCE, err, sizeof(err));
	if (!m->db) {
		fprintf(stderr, "ntprof-gen: %s\n", err);
		return -1;
	}
	m->open = 1;
	return 0;
}

/* Devices: key h+1 is host h's controller (cntlid h+1) on both machines;
 * a target has the controllers of the hosts it serves (TARGET), no others. */
static int add_devices(struct sim *s, struct machine *m, int role, int host, int target)
{
	for (int h = 0; h < s->cfg->nhosts; h++) {
		struct ntp_device_record d = { .dev = (uint64_t)h + 1, .nsid = 1,
					       .lba_shift = 9, .cntlid = (uint16_t)(h + 1),
					       .kind = NTP_KIND_DEVICE,
					       .version = NTP_ABI_VERSION };

		if ((role == NTP_ROLE_HOST && h != host) ||
		    (role == NTP_ROLE_TARGET && h % s->ntargets != target))
			continue;
		if (role == NTP_ROLE_TARGET)
			snprintf(d.name, sizeof(d.name), "nullb0");
		else if (!strcmp(s->cfg->host_driver, "spdk"))
			snprintf(d.name, sizeof(d.name), "spdk-c%dn1", h + 1);
		else
			snprintf(d.name, sizeof(d.name), "nvme%dn1", h + 1);
		snprintf(d.nqn, sizeof(d.nqn), NQN);
		if (ntp_db_add_device(m->db, &d))
			return -1;
	}
	return 0;
}

static int keep_truth(struct sim *s, int host, const struct cmd *c, int matched)
{
	struct gen_result *r = s->res;
	struct gen_truth *t;

	if (!r)
		return 0;
	if (r->ntruth == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		t = realloc(r->truth, s->cap * sizeof(*t));
		if (!t)
			return -1;
		r->truth = t;
	}
	t = &r->truth[r->ntruth++];
	t->host = host;
	t->grp_is_write = c->is_write;
	t->matched = matched;
	t->t = (c->h[NTP_H_START] ? c->h[NTP_H_START] : c->h[NTP_H_QUEUE]) -
	       (int64_t)(s->host[host].window[0] * NS);
	truth(c, t->comp);
	return 0;
}

/* Issue one command of host H at true time START on queue slot SLOT. */
static int issue(struct sim *s, int h, uint32_t slot, int64_t start, int64_t *done)
{
	const struct gen_config *cfg = s->cfg;
	struct machine *hm = &s->host[h], *tm = &s->target[h % s->ntargets];
	uint32_t trate = cfg->target_sample_rate ? cfg->target_sample_rate : cfg->sample_rate;
	struct ntp_cmd_record r = { .dev = (uint64_t)h + 1, .nsid = 1, .kind = NTP_KIND_CMD,
				    .version = NTP_ABI_VERSION, .cntlid = (uint16_t)(h + 1) };
	int host_rec, target_rec = 0;
	struct cmd c;
	uint32_t hash;

	c.is_write = unit(s) >= cfg->read_frac;
	c.r2t = c.is_write && cfg->write_kib >= 16;
	r.opcode = c.is_write ? 1 : 2;
	r.nlb = c.is_write ? cfg->write_kib * 2 - 1 : 7;
	r.qid = (uint16_t)(1 + slot % cfg->nqueues);
	r.cid = (uint16_t)(slot / cfg->nqueues);
	r.slba = (rnd(s) % (cfg->lba_span / 8 ? cfg->lba_span / 8 : 1)) * 8;
	simulate(s, &c, start, !strcmp(cfg->host_driver, "spdk"),
		 !strcmp(cfg->target_driver, "spdk"));
	*done = c.h[NTP_H_END] ? c.h[NTP_H_END] : c.h[NTP_H_COMPLETE];
	hash = ntp_sample_hash(r.qid, r.cid, r.opcode, r.nsid, r.slba, r.nlb);

	host_rec = in_window(hm, start);
	if (host_rec)
		hm->totals[c.is_write][h]++;
	if (!cfg->no_target && in_window(tm, c.t[NTP_T_RX])) {
		tm->totals[c.is_write][h]++;
		target_rec = ntp_sampled(hash, trate) && unit(s) >= cfg->target_loss;
	}
	if (target_rec) {
		r.role = NTP_ROLE_TARGET;
		to_record(&r, c.t, NTP_T_NPOINTS, tm->mono_base, cfg->target_drift_ppm);
		if (ntp_db_add_cmd(tm->db, &r))
			return -1;
		s->res ? s->res->target_records++ : 0;
	}
	/* a sampled host record lost (no draw without host_loss: the same
	 * seed, the same recordings) */
	if (host_rec && ntp_sampled(hash, cfg->sample_rate) && cfg->host_loss > 0 &&
	    unit(s) < cfg->host_loss) {
		if (ntp_db_add_lost(hm->db, NTP_CAUSE_RING_FULL, 1))
			return -1;
		s->res ? s->res->host_lost[h]++ : 0;
	} else if (host_rec && ntp_sampled(hash, cfg->sample_rate)) {
		r.role = NTP_ROLE_HOST;
		to_record(&r, c.h, NTP_H_NPOINTS, hm->mono_base, 0);
		if (ntp_db_add_cmd(hm->db, &r) || keep_truth(s, h, &c, target_rec))
			return -1;
		s->res ? s->res->host_records[h]++ : 0;
	}
	if (host_rec && s->res)
		s->res->issued[h]++;
	return 0;
}

/* Issue commands in true-time order over every host's queue slots: the
 * slot free earliest goes next (linear scan; hosts x qd is small). */
static int run_all(struct sim *s, int64_t *next, uint32_t nslots, int64_t end,
		   const int64_t *think)
{
	int64_t at = s->cfg->rate_at > 0 ? (int64_t)(s->cfg->rate_at * NS) : end;

	uint32_t qd = s->cfg->qd;

	for (;;) {
		uint32_t k = 0;
		int64_t done;
		int h;

		for (uint32_t i = 1; i < nslots; i++)
			if (next[i] < next[k])
				k = i;
		if (next[k] >= end)
			return 0;
		h = (int)(k / qd);
		if (tick(&s->host[h], next[k], s->cfg) ||
		    (!s->cfg->no_target && tick(&s->target[h % s->ntargets], next[k], s->cfg)))
			return -1;
		if (issue(s, h, k % qd, next[k], &done))
			return -1;
		/* think[1] from the rate change on */
		next[k] = done + think[next[k] >= at] + (int64_t)(unit(s) * 1000);
	}
}

static int close_all(struct sim *s, int rc)
{
	for (int h = 0; h < s->cfg->nhosts; h++) {
		struct machine *m = &s->host[h];

		if (!m->db)
			continue;
		if (!rc)
			rc = tick(m, INT64_MAX / 2, s->cfg);
		rc |= ntp_db_close(m->db, m->wall_base + (int64_t)(m->window[1] * NS),
				   m->mono_base + (int64_t)(m->window[1] * NS));
	}
	for (int t = 0; t < s->ntargets; t++) {
		struct machine *m = &s->target[t];

		if (!m->db)
			continue;
		if (!rc)
			rc = tick(m, INT64_MAX / 2, s->cfg);
		rc |= ntp_db_close(m->db, m->wall_base + (int64_t)(m->window[1] * NS),
				   m->mono_base + (int64_t)(m->window[1] * NS));
	}
	return rc ? -1 : 0;
}

/* The pause after each command that gives about IOPS per host, at qd. */
static int64_t think_ns(const struct gen_config *cfg, double iops, double per_cmd)
{
	int64_t t = (int64_t)(NS * (cfg->qd / iops - per_cmd));

	return t < 0 ? 0 : t;
}

/* A second of wall clock per seed after the first. */
static int64_t run_offset(const struct gen_config *cfg)
{
	return cfg->seed > 1 ? (int64_t)((cfg->seed - 1) % 1000000) * (int64_t)NS : 0;
}

int gen_run(const struct gen_config *cfg, const char *const *host_paths,
	    const char *target_path, struct gen_result *res)
{
	return gen_run_targets(cfg, host_paths, &target_path, res);
}

int gen_run_targets(const struct gen_config *cfg, const char *const *host_paths,
		    const char *const *target_paths, struct gen_result *res)
{
	struct sim s = { .cfg = cfg, .rng = cfg->seed * 0x9e3779b97f4a7c15ULL + 1, .res = res,
			 .ntargets = cfg->ntargets > 1 ? cfg->ntargets : 1 };
	int64_t end = (int64_t)(cfg->seconds * NS);
	double per_cmd = 90e-6; /* mean service time of the model, seconds */
	/* think time after each command: at iops, then (rate_at) at rate_iops */
	int64_t think[2] = { think_ns(cfg, cfg->iops, per_cmd),
			     think_ns(cfg, cfg->rate_at > 0 ? cfg->rate_iops : cfg->iops, per_cmd) };
	int64_t *next;
	int rc = 0;

	if (cfg->nhosts < 1 || cfg->nhosts > GEN_MAX_HOSTS || s.ntargets > GEN_MAX_TARGETS ||
	    s.ntargets > cfg->nhosts || !cfg->qd || !cfg->nqueues ||
	    cfg->interval_s <= 0 || (cfg->rate_at > 0 && cfg->rate_iops <= 0))
		return -1;
	if (res)
		memset(res, 0, sizeof(*res));
	for (int t = 0; t < s.ntargets; t++) {
		/* each target its own clock origin, 11 s apart */
		s.target[t].mono_base = 5000 * (int64_t)NS + cfg->target_clock_ns +
					t * 11 * (int64_t)NS;
		/* each seed a run of its own: it starts a second later on the
		 * wall clock (the recordings' identity, meta's start times,
		 * differs) */
		s.target[t].wall_base = WALL0 + run_offset(cfg) + cfg->wall_error_ns;
		memcpy(s.target[t].window, cfg->target_window, sizeof(s.target[t].window));
	}
	for (int h = 0; h < cfg->nhosts && !rc; h++) {
		s.host[h].mono_base = 5000 * (int64_t)NS + h * 7 * (int64_t)NS;
		s.host[h].wall_base = WALL0 + run_offset(cfg);
		memcpy(s.host[h].window, cfg->host_window, sizeof(s.host[h].window));
		rc = open_machine(&s, &s.host[h], host_paths[h], NTP_ROLE_HOST,
				  cfg->host_driver, cfg->sample_rate, h) ||
		     add_devices(&s, &s.host[h], NTP_ROLE_HOST, h, -1);
	}
	for (int t = 0; t < s.ntargets && !rc && !cfg->no_target; t++)
		rc = open_machine(&s, &s.target[t], target_paths[t], NTP_ROLE_TARGET,
				  cfg->target_driver, cfg->target_sample_rate ?
				  cfg->target_sample_rate : cfg->sample_rate, t) ||
		     add_devices(&s, &s.target[t], NTP_ROLE_TARGET, -1, t);
	next = calloc((size_t)cfg->qd * (unsigned)cfg->nhosts, sizeof(*next));
	if (!next)
		rc = -1;
	for (uint32_t i = 0; !rc && i < cfg->qd * (uint32_t)cfg->nhosts; i++)
		next[i] = (int64_t)i * 1000 + 1000; /* tau 0 would read as "no point" */
	if (!rc)
		rc = run_all(&s, next, cfg->qd * (uint32_t)cfg->nhosts, end, think);
	free(next);
	return close_all(&s, rc);
}

void gen_result_free(struct gen_result *res)
{
	free(res->truth);
	res->truth = NULL;
}
