// Teams and communication contexts. Handles cross into Python as integers; the Team and Ctx
// classes of shmem/_team.py wrap them. Built only when <shmem.h> declares the team API.
#include "common.hpp"

namespace shmem_py {

#ifdef SHMEM_SHMEM_TEAM_H

namespace {

shmem_team_t team_of(std::uintptr_t h) { return reinterpret_cast<shmem_team_t>(h); }
std::uintptr_t handle(shmem_team_t t) { return reinterpret_cast<std::uintptr_t>(t); }
std::uintptr_t handle(shmem_ctx_t c) { return reinterpret_cast<std::uintptr_t>(c); }

void require_team(std::uintptr_t h, const char* name) {
  ensure_init();
  if (team_of(h) == SHMEM_TEAM_INVALID) raise_value(std::string(name) + " is TEAM_INVALID");
}

// A config with only num_contexts (the one field of shmem_team_config_t); None -> mask 0.
struct Config {
  shmem_team_config_t conf{};
  long mask = 0;
  explicit Config(py::handle num_contexts) {
    if (!num_contexts.is_none()) {
      conf.num_contexts = num_contexts.cast<int>();
      if (conf.num_contexts < 0) raise_value("num_contexts must be >= 0");
      mask = SHMEM_TEAM_NUM_CONTEXTS;
    }
  }
};

std::uintptr_t split_strided(std::uintptr_t parent, int start, int stride, int size, py::handle num_contexts) {
  require_team(parent, "parent team");
  const Config c(num_contexts);
  shmem_team_t out = SHMEM_TEAM_INVALID;
  int rc = 0;
  {
    py::gil_scoped_release nogil;
    rc = shmem_team_split_strided(team_of(parent), start, stride, size, &c.conf, c.mask, &out);
  }
  check_rc(rc, "shmem_team_split_strided");
  return handle(out);
}

py::tuple split_2d(std::uintptr_t parent, int xrange, py::handle x_num_contexts, py::handle y_num_contexts) {
  require_team(parent, "parent team");
  if (xrange <= 0) raise_value("xrange=" + std::to_string(xrange) + " must be positive");
  const Config xc(x_num_contexts), yc(y_num_contexts);
  shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
  int rc = 0;
  {
    py::gil_scoped_release nogil;
    rc = shmem_team_split_2d(team_of(parent), xrange, &xc.conf, xc.mask, &x, &yc.conf, yc.mask, &y);
  }
  check_rc(rc, "shmem_team_split_2d");
  return py::make_tuple(handle(x), handle(y));
}

}  // namespace

void bind_team(py::module_& m) {
  using py::arg;
  m.attr("HAVE_TEAMS") = true;
  m.attr("TEAM_WORLD") = handle(SHMEM_TEAM_WORLD);
  m.attr("TEAM_SHARED") = handle(SHMEM_TEAM_SHARED);
  m.attr("TEAM_INVALID") = handle(SHMEM_TEAM_INVALID);
  m.attr("TEAM_NUM_CONTEXTS") = SHMEM_TEAM_NUM_CONTEXTS;
  m.def("team_my_pe", [](std::uintptr_t t) {
    ensure_init();
    return shmem_team_my_pe(team_of(t));
  });
  m.def("team_n_pes", [](std::uintptr_t t) {
    ensure_init();
    return shmem_team_n_pes(team_of(t));
  });
  m.def("team_get_config", [](std::uintptr_t t) {
    require_team(t, "team");
    shmem_team_config_t conf{};
    check_rc(shmem_team_get_config(team_of(t), SHMEM_TEAM_NUM_CONTEXTS, &conf), "shmem_team_get_config");
    return conf.num_contexts;
  });
  m.def("team_translate_pe", [](std::uintptr_t src, int pe, std::uintptr_t dst) {
    ensure_init();
    return shmem_team_translate_pe(team_of(src), pe, team_of(dst));
  });
  m.def("team_split_strided", &split_strided, arg("parent"), arg("start"), arg("stride"), arg("size"),
        arg("num_contexts"));
  m.def("team_split_2d", &split_2d, arg("parent"), arg("xrange"), arg("x_num_contexts"), arg("y_num_contexts"));
  m.def("team_destroy", [](std::uintptr_t t) {
    ensure_init();
    py::gil_scoped_release nogil;
    shmem_team_destroy(team_of(t));
  });
  m.def("team_sync", [](std::uintptr_t t) {
    require_team(t, "team");
    int rc = 0;
    {
      py::gil_scoped_release nogil;
      rc = shmem_team_sync(team_of(t));
    }
    check_rc(rc, "shmem_team_sync");
  });
  m.def("ctx_create", [](long options) {
    ensure_init();
    shmem_ctx_t c = SHMEM_CTX_INVALID;
    check_rc(shmem_ctx_create(options, &c), "shmem_ctx_create");
    return handle(c);
  });
  m.def("team_create_ctx", [](std::uintptr_t t, long options) {
    require_team(t, "team");
    shmem_ctx_t c = SHMEM_CTX_INVALID;
    int rc = 0;
    {
      py::gil_scoped_release nogil;
      rc = shmem_team_create_ctx(team_of(t), options, &c);
    }
    check_rc(rc, "shmem_team_create_ctx");
    return handle(c);
  });
  m.def("ctx_destroy", [](std::uintptr_t c) {
    ensure_init();
    check_ctx(c);
    if (c == 0) raise_value("the default context cannot be destroyed");
    py::gil_scoped_release nogil;
    shmem_ctx_destroy(ctx_of(c));
  });
  m.def("ctx_get_team", [](std::uintptr_t c) {
    ensure_init();
    check_ctx(c);
    shmem_team_t t = SHMEM_TEAM_INVALID;
    check_rc(shmem_ctx_get_team(ctx_of(c), &t), "shmem_ctx_get_team");
    return handle(t);
  });
}

#else  // the library's <shmem.h> has no team API yet

void bind_team(py::module_& m) {
  m.attr("HAVE_TEAMS") = false;
  m.attr("TEAM_WORLD") = 1;
  m.attr("TEAM_SHARED") = 2;
  m.attr("TEAM_INVALID") = 0;
  m.attr("TEAM_NUM_CONTEXTS") = 1;
}

#endif

}  // namespace shmem_py
