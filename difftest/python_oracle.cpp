// The Python oracle's child process and its protocol (python_oracle.h): JSON
// Lines over a socket pair (a socket, so a child that died is an error from
// send, never a SIGPIPE), the heaps' tuples and each query's typed IR written
// with nlohmann-json. Floats go as their IEEE bits and characters as hex, so
// nothing is rounded or re-encoded on the way.
#include "difftest/python_oracle.h"

#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/rows.h"
#include "runtime/runtime.h"
#include "storage/relation.h"

extern char** environ;

namespace quelkit::difftest {

namespace {

using nlohmann::json;

std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string h;
  for (unsigned char c : s) {
    h += d[c >> 4];
    h += d[c & 15];
  }
  return h;
}

const char* format_name(Type t) {
  switch (t.kind) {
    case Tk::I1: return "i1";
    case Tk::I2: return "i2";
    case Tk::I4: return "i4";
    case Tk::F4: return "f4";
    case Tk::F8: return "f8";
    case Tk::C: return "c";
    default: return "b";
  }
}

// A value of type t: integers as numbers, floats as their bits, characters as hex.
json value_json(Type t, const ir::Value& v) {
  if (t.kind == Tk::F4) {
    uint32_t b;
    std::memcpy(&b, &v.f4, 4);
    return b;
  }
  if (t.kind == Tk::F8) {
    uint64_t b;
    std::memcpy(&b, &v.f8, 8);
    return b;
  }
  if (t.is_char()) return hex(v.s);
  return v.i;
}

json node_json(const ir::Node& n) {
  json j = {{"op", ir::op_name(n.op)}, {"type", format_name(n.type)}, {"len", n.type.len},
            {"pos", {n.pos.line, n.pos.col}}};
  if (n.op == ir::Op::CONST) j["val"] = value_json(n.type, n.val);
  if (n.op == ir::Op::ATTR) {
    j["var"] = n.var;
    j["attr"] = n.attr;
  }
  json kids = json::array();
  for (const auto& k : n.kid)
    if (k) kids.push_back(node_json(*k));
  j["kids"] = std::move(kids);
  return j;
}

const char* kind_name(frontend::BoundKind k) {
  switch (k) {
    case frontend::BoundKind::Retrieve: return "retrieve";
    case frontend::BoundKind::Append: return "append";
    case frontend::BoundKind::Replace: return "replace";
    default: return "delete";
  }
}

}  // namespace

std::string PythonOracle::default_script() { return std::string(QUELKIT_SOURCE_DIR) + "/test/oracle/oracle.py"; }

PythonOracle::~PythonOracle() {
  if (fd_ >= 0) close(fd_);  // the child reads the end of its input and exits
  if (pid_ > 0) {
    int st;
    waitpid(pid_, &st, 0);
  }
}

std::unique_ptr<PythonOracle> PythonOracle::open(const harness::Catalog& cat, const std::string& script,
                                                 std::string* err) {
  if (access(script.c_str(), R_OK) != 0) {
    *err = script + ": " + std::strerror(errno);
    return nullptr;
  }
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    *err = std::string("socketpair: ") + std::strerror(errno);
    return nullptr;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
  std::string py = "python3", cmd = "difftest";
  char* argv[] = {py.data(), const_cast<char*>(script.c_str()), cmd.data(), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, "python3", &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(sv[1]);
  if (rc != 0) {
    close(sv[0]);
    *err = std::string("python3: ") + std::strerror(rc);
    return nullptr;
  }
  std::unique_ptr<PythonOracle> o(new PythonOracle);
  o->fd_ = sv[0];
  o->pid_ = pid;
  // The heaps, in scan order: a tuple's ordinal there is the one errors name.
  json rels = json::object();
  for (const char* name : {"edge", "parts"}) {
    harness::Relation* rel = cat.find(name);
    if (!rel) {
      *err = std::string("relation ") + name + " is missing";
      return nullptr;
    }
    const Schema& s = rel->schema();
    json attrs = json::array(), tuples = json::array();
    for (const Attribute& a : s.attrs) attrs.push_back({{"name", a.name}, {"type", format_name(a.type)}, {"len", a.type.len}});
    rel->for_each([&](harness::Tid, const uint8_t* tuple) {
      json t = json::array();
      for (const Attribute& a : s.attrs) t.push_back(value_json(a.type, harness::get_value(a, tuple)));
      tuples.push_back(std::move(t));
    });
    rels[name] = {{"attrs", std::move(attrs)}, {"tuples", std::move(tuples)}};
  }
  std::string line;
  if (!o->send(json{{"relations", std::move(rels)}}.dump(), err) || !o->receive(&line, err)) return nullptr;
  if (line != "{\"ready\":true}") {
    *err = "the oracle said " + line;
    return nullptr;
  }
  return o;
}

bool PythonOracle::send(const std::string& line, std::string* err) {
  std::string data = line + "\n";
  for (size_t off = 0; off < data.size();) {
    const ssize_t n = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = std::string("writing to the Python oracle: ") + std::strerror(errno);
      return false;
    }
    off += size_t(n);
  }
  return true;
}

bool PythonOracle::receive(std::string* line, std::string* err) {
  for (;;) {
    const size_t nl = buffered_.find('\n');
    if (nl != std::string::npos) {
      *line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return true;
    }
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = "the Python oracle ended without an answer";
      return false;
    }
    buffered_.append(buf, size_t(n));
  }
}

bool PythonOracle::ask(const frontend::BoundQuery& q, Answer* a, std::string* err) {
  json vars = json::array(), targets = json::array();
  for (const auto& v : q.vars) vars.push_back(v.relation);
  for (const auto& t : q.targets) targets.push_back(node_json(*t.expr));
  json req = {{"kind", kind_name(q.kind)}, {"vars", std::move(vars)}, {"targets", std::move(targets)}};
  req["qual"] = q.qual ? node_json(*q.qual) : json(nullptr);
  std::string line;
  if (!send(req.dump(), err) || !receive(&line, err)) return false;
  const json r = json::parse(line, nullptr, false);
  if (!r.is_object() || !r.contains("status")) {
    *err = "the Python oracle wrote " + line;
    return false;
  }
  *a = Answer{};
  const std::string status = r["status"].get<std::string>();
  if (status == "skip") {
    a->skipped = r.value("reason", "?");
    return true;
  }
  a->evaluated = true;
  if (status == "ok") return true;
  a->raised = true;
  a->error.kind = ErrKind::Runtime;
  a->error.code = r.value("code", 0);
  a->error.message = qk_err_message(a->error.code);
  a->error.pos = {r.value("line", 0u), r.value("col", 0u)};
  a->error.relation = r.value("relation", "");
  a->error.tuple = r.value("tuple", int64_t(-1));
  return true;
}

}  // namespace quelkit::difftest
