// A minimal JSON reader for the tests (objects, arrays, strings, numbers,
// true/false/null): enough to read test/oracle/expected.json without a
// dependency. Not a general-purpose parser: no \u escapes beyond ASCII.
#pragma once

#include <cctype>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace quelkit::test {

struct Json {
  enum Kind { Null, Bool, Num, Str, Arr, Obj } kind = Null;
  double num = 0;
  bool b = false;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;

  const Json& operator[](const std::string& k) const {
    auto it = obj.find(k);
    if (it == obj.end()) throw std::runtime_error("json: no key " + k);
    return it->second;
  }
  bool has(const std::string& k) const { return obj.count(k) != 0; }

  static Json parse(const std::string& s) {
    size_t i = 0;
    Json j = value(s, i);
    return j;
  }

 private:
  static void ws(const std::string& s, size_t& i) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  static std::string string(const std::string& s, size_t& i) {
    std::string r;
    ++i;  // opening quote
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) {
        char e = s[++i];
        r += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        r += s[i];
      }
      ++i;
    }
    ++i;
    return r;
  }
  static Json value(const std::string& s, size_t& i) {
    ws(s, i);
    Json j;
    if (i >= s.size()) throw std::runtime_error("json: unexpected end");
    char c = s[i];
    if (c == '{') {
      j.kind = Obj;
      ++i;
      ws(s, i);
      if (s[i] == '}') return ++i, j;
      for (;;) {
        ws(s, i);
        std::string k = string(s, i);
        ws(s, i);
        ++i;  // ':'
        j.obj[k] = value(s, i);
        ws(s, i);
        if (s[i++] == '}') return j;
      }
    }
    if (c == '[') {
      j.kind = Arr;
      ++i;
      ws(s, i);
      if (s[i] == ']') return ++i, j;
      for (;;) {
        j.arr.push_back(value(s, i));
        ws(s, i);
        if (s[i++] == ']') return j;
      }
    }
    if (c == '"') {
      j.kind = Str;
      j.str = string(s, i);
      return j;
    }
    if (s.compare(i, 4, "true") == 0) return i += 4, j.kind = Bool, j.b = true, j;
    if (s.compare(i, 5, "false") == 0) return i += 5, j.kind = Bool, j;
    if (s.compare(i, 4, "null") == 0) return i += 4, j;
    size_t e = i;
    while (e < s.size() && (std::isdigit(static_cast<unsigned char>(s[e])) || std::strchr("+-.eE", s[e]))) ++e;
    j.kind = Num;
    j.num = std::stod(s.substr(i, e - i));
    i = e;
    return j;
  }
};

}  // namespace quelkit::test
