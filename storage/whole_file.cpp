// Files written whole or not at all (whole_file.h): the temporary beside the
// file, the in-place fallback that reserves its space first, and streaming
// to what is not a regular file.
#include "storage/whole_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <streambuf>

#include "storage/budget.h"

namespace quelkit::harness {

namespace {

// While one lives, a write to a pipe or FIFO whose reader has gone fails with
// EPIPE, and a write past the file-size limit (ulimit -f) with EFBIG, each an
// I/O error of the writer, instead of SIGPIPE or SIGXFSZ ending the process
// (and the monitor's session with it). A signal a failed write raised is
// taken before it is unblocked.
class NoWriteSignals {
 public:
  NoWriteSignals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGPIPE);
    sigaddset(&set_, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~NoWriteSignals() {
    sigset_t take;  // those this blocked: one blocked before is left as it was
    sigemptyset(&take);
    for (int sig : {SIGPIPE, SIGXFSZ})
      if (!sigismember(&old_, sig)) sigaddset(&take, sig);
    const timespec none{0, 0};
    while (sigtimedwait(&take, nullptr, &none) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  NoWriteSignals(const NoWriteSignals&) = delete;
  NoWriteSignals& operator=(const NoWriteSignals&) = delete;

 private:
  sigset_t set_, old_;
};

}  // namespace

// Where the bytes go:
// - A regular file with one name that this may write, or a name no file has
//   yet: a hidden temporary beside it, renamed over the name at commit. The
//   file keeps its mode and owner; where only root could give the owner back,
//   it is written in place instead.
// - Any other regular file (a file with other names, a name that is a link,
//   a directory this cannot create in, that owner): in place, once the space
//   for every byte is reserved.
// - Anything else is streamed, as it must be: a FIFO, /dev/full, a terminal.
//   (/dev/stdout may be the very file the shell redirected output to: a link,
//   so in place.)
// A file this may not write is refused whichever way it would be written.
class WholeFile::Impl {
 public:
  Impl(const std::string& file, size_t bytes, bool cancellable, std::string* error)
      : file_(file), bytes_(bytes), cancellable_(cancellable), error_(error) {
    if (file.empty()) {
      *error_ = "cannot open a file of no name";
      return;
    }
    struct stat st {};
    const bool exists = ::lstat(file.c_str(), &st) == 0;
    if (exists ? S_ISREG(st.st_mode) && st.st_nlink == 1 && ::faccessat(AT_FDCWD, file.c_str(), W_OK, AT_EACCESS) == 0
               : errno == ENOENT)
      temporary(exists ? &st : nullptr);
    if (fd_ < 0) open_in_place(exists);
  }
  ~Impl() {
    if (fd_ >= 0) ::close(fd_);
    if (!temp_.empty()) ::unlink(temp_.c_str());
    if (created_) ::unlink(file_.c_str());
  }
  bool in_place() const { return in_place_; }

  bool write(std::string_view b) {
    if (!error_->empty()) return false;
    if (in_place_ && bytes_ == kUnknownSize) {  // held until commit reserves their space
      held_.append(b);
      return true;
    }
    return write_out(b);
  }

  bool commit() {
    if (!error_->empty()) return false;
    if (in_place_ && bytes_ == kUnknownSize) {
      if (!reserve(held_.size())) return false;
      if (!write_out(held_)) return false;
      std::string().swap(held_);
    }
    if (in_place_ && ::ftruncate(fd_, off_t(written_)) != 0) return fail("cannot write", errno);
    const int closed = ::close(fd_);
    fd_ = -1;
    if (closed != 0) return fail("cannot write", errno);
    created_ = false;
    if (temp_.empty()) return true;
    if (::rename(temp_.c_str(), file_.c_str()) != 0) return fail("cannot write", errno);
    temp_.clear();
    return true;
  }

 private:
  bool fail(const char* what, int err) {
    if (error_->empty()) *error_ = std::string(what) + " " + file_ + ": " + std::strerror(err);
    return false;
  }

  // A hidden temporary beside the file; none (fd_ < 0) where the directory
  // refuses one or the file's owner cannot be given back.
  void temporary(const struct stat* st) {
    const size_t slash = file_.rfind('/');
    const size_t base = slash == std::string::npos ? 0 : slash + 1;
    std::string tmp = file_.substr(0, base) + "." + file_.substr(base) + ".quelkit-XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) return;
    if (st) {
      // Only root may give a file away: a file of another owner (or group)
      // is written in place, where it keeps both.
      if (::fchown(fd, st->st_uid, st->st_gid) != 0) {
        ::close(fd);
        ::unlink(tmp.c_str());
        return;
      }
      ::fchmod(fd, st->st_mode & 07777);
    } else {
      const mode_t mask = ::umask(0);
      ::umask(mask);
      ::fchmod(fd, 0666 & ~mask);
    }
    fd_ = fd;
    temp_ = tmp;
  }

  void open_in_place(bool existed) {
    for (;;) {
      if (cancellable_) check_cancel();  // a FIFO's open waits for its reader
      fd_ = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
      if (fd_ >= 0) break;
      if (errno != EINTR) {
        fail("cannot open", errno);
        return;
      }
    }
    created_ = !existed;
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return;  // streamed
    in_place_ = true;
    old_size_ = st.st_size;
    if (bytes_ != kUnknownSize) reserve(bytes_);
  }

  // The space first: posix_fallocate fails (EFBIG, ENOSPC) before a byte of
  // the old content changes; the size it may have grown goes back.
  bool reserve(size_t bytes) {
    if (off_t(bytes) <= old_size_) return true;
    const int err = ::posix_fallocate(fd_, 0, off_t(bytes));
    if (err == 0) return true;
    [[maybe_unused]] const int cut = ::ftruncate(fd_, old_size_);
    return fail("cannot write", err);
  }

  // write(2) itself, not stdio: a write to a pipe that Ctrl-C interrupts
  // after some bytes returns their count, and stdio would write the rest,
  // waiting again, and the cancel be lost. A file written in place goes on
  // to its end: stopping there would leave it neither old nor new.
  bool write_out(std::string_view b) {
    const bool may_stop = cancellable_ && !in_place_;
    for (size_t done = 0; done < b.size();) {
      const ssize_t k = ::write(fd_, b.data() + done, b.size() - done);
      if (k < 0 && errno != EINTR) return fail("cannot write", errno);
      if (k == 0) return fail("cannot write", EIO);
      if (k > 0) {
        done += size_t(k);
        written_ += size_t(k);
      }
      if (may_stop && cancel_requested()) throw_cancelled();
    }
    return true;
  }

  std::string file_, temp_, held_;
  size_t bytes_, written_ = 0;
  off_t old_size_ = 0;
  bool cancellable_;
  std::string* error_;
  int fd_ = -1;
  bool in_place_ = false, created_ = false;
  NoWriteSignals quiet_;
};

// The stream's buffer: 64 KiB at a time to the file.
class WholeFile::Buf : public std::streambuf {
 public:
  explicit Buf(WholeFile& f) : f_(f), buf_(size_t(64) << 10, '\0') { setp(buf_.data(), buf_.data() + buf_.size()); }
  bool drain() {
    const size_t n = size_t(pptr() - pbase());
    setp(buf_.data(), buf_.data() + buf_.size());
    return n == 0 || f_.write(std::string_view(buf_.data(), n));
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  WholeFile& f_;
  std::string buf_;
};

WholeFile::WholeFile(std::string path, size_t bytes, bool cancellable)
    : path_(std::move(path)), stream_(nullptr) {
  impl_ = std::make_unique<Impl>(path_, bytes, cancellable, &error_);
  buf_ = std::make_unique<Buf>(*this);
  stream_.rdbuf(buf_.get());
  if (!ok()) stream_.setstate(std::ios::badbit);
}

WholeFile::~WholeFile() = default;

bool WholeFile::write(std::string_view bytes) { return impl_->write(bytes); }

bool WholeFile::commit() {
  const bool drained = buf_->drain();
  return impl_->commit() && drained;
}

bool WholeFile::in_place() const { return impl_->in_place(); }

std::string commit_all(std::initializer_list<WholeFile*> files) {
  std::string first;
  for (WholeFile* f : files)
    if (!f->commit() && first.empty()) first = f->error();
  return first;
}

}  // namespace quelkit::harness
