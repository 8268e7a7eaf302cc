// The agent's calls on a directory descriptor, for the walk. Node has none, so without
// this the walk reaches a name through the descriptor's magic link,
// "/proc/self/fd/N/name": confined the same way, but the kernel cannot resolve a magic link
// in its fast (RCU) path walk, so every such lookup is done twice, the second time through
// procfs's checks. Here a name is looked up in that directory and nothing else:
// - lstatAt: statx(N, name, AT_SYMLINK_NOFOLLOW) (fstatat's lookup; statx because glibc has
//   had it since 2.28, the packages' floor, where fstatat's own symbol is 2.33's);
// - openAt: openat(N, name, O_PATH|O_NOFOLLOW|O_CLOEXEC[|O_DIRECTORY]): a handle for
//   lookups only, never for reading, so a FIFO or a device is never opened for I/O.
// - openDirRead: a descriptor to read a directory's entries from, by
//   openat(N, ".", O_RDONLY|O_DIRECTORY) (no lookup but the directory itself): a directory
//   is otherwise read by opening its magic link "/proc/self/fd/N", one more procfs walk.
// - readPacked: a directory read and stat'ed in one call: one getdents64 chunk on the read
//   descriptor, then statx(fd, name, AT_SYMLINK_NOFOLLOW) of each of its entries on that same
//   descriptor (confined to the directory as lstatAt is), written as fixed-size records into
//   the caller's Buffer, the names left where getdents64 put them in the same Buffer: no
//   JavaScript object per entry, one crossing into C per chunk (packed-dir.ts reads them).
// - mountsChanged: poll(2) of a kept /proc/self/mountinfo descriptor for POLLPRI, which the
//   kernel raises once a mount or unmount happened since the last poll: the table is read
//   again only then, where reading it costs a walk the kernel's printing of every mount.
// A name must be one component: no "/", no NUL, not "." or "..". Read-only: nothing here
// reads a file or changes anything; the only descriptor opened for reading is a directory's.
// Node-API, so one build serves Node 20, 22 and 24 and the packaged runtime.
#define NAPI_VERSION 8
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <node_api.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

// The fields written to `out`, in this order (native-stat.ts reads them by the same names).
enum { F_MODE, F_SIZE, F_MTIME_SEC, F_MTIME_NSEC, F_UID, F_GID, F_INO, F_NLINK, F_DEV, F_BLOCKS, F_COUNT };

static napi_value number(napi_env env, int32_t v) {
  napi_value out;
  napi_create_int32(env, v, &out);
  return out;
}

static napi_value type_error(napi_env env, const char* msg) {
  napi_throw_type_error(env, NULL, msg);
  return NULL;
}

/* One component of a directory, copied NUL-terminated into `name`; EINVAL when it is not one. */
static int one_component(napi_env env, napi_value value, char name[NAME_MAX + 1]) {
  void* data;
  size_t len;
  napi_get_buffer_info(env, value, &data, &len);
  if (len == 0 || len > NAME_MAX || memchr(data, '/', len) != NULL || memchr(data, 0, len) != NULL) return EINVAL;
  memcpy(name, data, len);
  name[len] = 0;
  if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return EINVAL;
  return 0;
}

/* A call `fn(dirFd, name, third)` as read: `bad` is EINVAL when the name is not one component, else 0. */
struct at_call {
  int32_t fd;
  char name[NAME_MAX + 1];
  napi_value third;
  int bad;
};

/* Reads the call's arguments into `c`; false when it threw a TypeError naming the wrong one. */
static bool at_args(napi_env env, napi_callback_info info, const char* fn, struct at_call* c) {
  size_t argc = 3;
  napi_value argv[3];
  bool is_buffer = false;
  const char* wrong = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3)
    wrong = "takes three arguments";
  else if (napi_get_value_int32(env, argv[0], &c->fd) != napi_ok)
    wrong = "dirFd must be a number";
  else if (napi_is_buffer(env, argv[1], &is_buffer) != napi_ok || !is_buffer)
    wrong = "name must be a Buffer";
  if (wrong != NULL) {
    char msg[64];
    snprintf(msg, sizeof msg, "%s: %s", fn, wrong);
    napi_throw_type_error(env, NULL, msg);
    return false;
  }
  c->third = argv[2];
  c->bad = one_component(env, argv[1], c->name);
  return true;
}

// lstatAt(dirFd: number, name: Buffer, out: Float64Array) -> 0, or the errno. Not followed
// if it is a symlink.
static napi_value lstat_at(napi_env env, napi_callback_info info) {
  struct at_call c;
  if (!at_args(env, info, "lstatAt", &c)) return NULL;
  bool is_typed = false;
  napi_typedarray_type type = napi_int8_array;
  size_t count = 0;
  void* out_data = NULL;
  if (napi_is_typedarray(env, c.third, &is_typed) == napi_ok && is_typed)
    napi_get_typedarray_info(env, c.third, &type, &count, &out_data, NULL, NULL);
  if (!is_typed || type != napi_float64_array || count < F_COUNT)
    return type_error(env, "lstatAt: out must be a Float64Array of 10");
  if (c.bad != 0) return number(env, c.bad);

  // AT_NO_AUTOMOUNT: as lstat(2) and find do, an automount point is described, not mounted
  // (a lister must not mount every map of an autofs directory it passes).
  struct statx st;
  if (statx(c.fd, c.name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &st) != 0) return number(env, errno);
  double* out = out_data;
  out[F_MODE] = st.stx_mode;
  out[F_SIZE] = (double)st.stx_size;
  out[F_MTIME_SEC] = (double)st.stx_mtime.tv_sec;
  out[F_MTIME_NSEC] = (double)st.stx_mtime.tv_nsec;
  out[F_UID] = st.stx_uid;
  out[F_GID] = st.stx_gid;
  out[F_INO] = (double)st.stx_ino;
  out[F_NLINK] = (double)st.stx_nlink;
  // As libuv makes st_dev from statx (what node:fs reports).
  out[F_DEV] = (double)makedev(st.stx_dev_major, st.stx_dev_minor);
  out[F_BLOCKS] = (double)st.stx_blocks;
  return number(env, 0);
}

// openAt(dirFd: number, name: Buffer, dir: boolean) -> a descriptor (O_PATH), or -errno.
// `dir`: it must be a directory (a symlink fails with ELOOP or ENOTDIR).
static napi_value open_at(napi_env env, napi_callback_info info) {
  struct at_call c;
  if (!at_args(env, info, "openAt", &c)) return NULL;
  bool dir;
  if (napi_get_value_bool(env, c.third, &dir) != napi_ok) return type_error(env, "openAt: dir must be a boolean");
  if (c.bad != 0) return number(env, -c.bad);
  int opened = openat(c.fd, c.name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
  return number(env, opened >= 0 ? opened : -errno);
}

/* The one int32 argument of `fn`, named `what` in its TypeError; false when it threw. */
static bool fd_arg(napi_env env, napi_callback_info info, const char* fn, const char* what, size_t want, napi_value* argv,
                   int32_t* fd) {
  size_t argc = want;
  char msg[64];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != want) {
    snprintf(msg, sizeof msg, "%s: takes %s", fn, want == 1 ? "one argument" : "two arguments");
  } else if (napi_get_value_int32(env, argv[0], fd) != napi_ok) {
    snprintf(msg, sizeof msg, "%s: %s must be a number", fn, what);
  } else {
    return true;
  }
  napi_throw_type_error(env, NULL, msg);
  return false;
}

// openDirRead(dirFd: number) -> a descriptor of the same directory open for reading, or
// -errno (EACCES: it may be looked up in but not listed). "." is the directory itself, never
// a symlink: O_NOFOLLOW changes nothing, it only keeps every open here without following.
static napi_value open_dir_read(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int32_t fd;
  if (!fd_arg(env, info, "openDirRead", "dirFd", 1, argv, &fd)) return NULL;
  int opened = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return number(env, opened >= 0 ? opened : -errno);
}

// The packed records readPacked writes (packed-dir.ts reads them by the same offsets): REC
// bytes each from the Buffer's start, the getdents64 chunk in its last DENTS bytes.
enum {
  REC = 72,
  R_SIZE = 0,       // f64
  R_BLOCKS = 8,     // f64
  R_MTIME_SEC = 16, // f64
  R_INO = 24,       // f64
  R_DEV = 32,       // f64, as libuv makes st_dev
  R_MTIME_NSEC = 40, // i32
  R_MODE = 44,      // u32
  R_UID = 48,       // u32
  R_GID = 52,       // u32
  R_NLINK = 56,     // u32
  R_NAME_OFF = 60,  // u32: the name's first byte in the Buffer
  R_NAME = 64,      // u32: the name's length | d_type << 16 | S_* << 24 (one word: either byte order)
  R_ERRNO = 68,     // i32: statx's errno when S_FAILED
  DENTS = 32 * 1024,
  // The shortest linux_dirent64 is 24 bytes (19 of header, a name of one byte, its NUL, padding).
  MAX_RECORDS = DENTS / 24 + 1,
};
enum { S_NAME_ONLY = 0, S_STATED = 1, S_FAILED = 2 };
// The hung-mount probe (call-probe.ts): int32 slots, then the path at PROBE_PATH.
enum { PROBE_SEQ = 1, PROBE_LEN = 2, PROBE_PATH = 32, PROBE_PATH_MAX = 4096 };

struct dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

/* The probe's path becomes "<dir>/<name>" (cut at its end) and its sequence moves on: a call per entry. */
static void probe_entry(uint8_t* probe, int32_t dir_len, const char* name, size_t len) {
  uint8_t* path = probe + PROBE_PATH;
  size_t at = (size_t)dir_len;
  if (at < PROBE_PATH_MAX) path[at++] = '/';
  size_t n = len < PROBE_PATH_MAX - at ? len : PROBE_PATH_MAX - at;
  memcpy(path + at, name, n);
  int32_t* ctl = (int32_t*)probe;
  __atomic_store_n(&ctl[PROBE_LEN], (int32_t)(at + n), __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&ctl[PROBE_SEQ], 1, __ATOMIC_SEQ_CST);
}

/* A Buffer's or typed array's bytes; false when `value` is neither. */
static bool bytes_of(napi_env env, napi_value value, uint8_t** data, size_t* len) {
  bool is = false;
  if (napi_is_buffer(env, value, &is) == napi_ok && is)
    return napi_get_buffer_info(env, value, (void**)data, len) == napi_ok;
  if (napi_is_typedarray(env, value, &is) != napi_ok || !is) return false;
  napi_typedarray_type type;
  size_t count;
  napi_value ab;
  size_t offset;
  if (napi_get_typedarray_info(env, value, &type, &count, (void**)data, &ab, &offset) != napi_ok) return false;
  if (type != napi_uint8_array) return false;
  *len = count;
  return true;
}

// readPacked(fd: number, buf: Buffer, statMask: number, probe: Uint8Array | null, dirLen: number)
// -> records written (>= 1), 0 at the end of the directory, or -errno of getdents64.
// `fd`: a directory open for reading (openDirRead). An entry whose d_type's bit is set in
// `statMask` is statx'ed (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, as lstatAt); the others get
// their name and d_type only (S_NAME_ONLY), for the caller to stat later if it keeps them.
// `probe`: the walk's hung-mount probe, its path already the directory's (`dirLen` bytes):
// each statx is announced there as "<dir>/<name>", so a stat that hangs names its entry.
static napi_value read_packed(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  int32_t fd, dir_len = 0;
  uint32_t mask;
  uint8_t* buf = NULL;
  size_t len = 0;
  uint8_t* probe = NULL;
  size_t probe_len = 0;
  napi_valuetype probe_type = napi_null;
  const char* wrong = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5)
    wrong = "readPacked: takes five arguments";
  else if (napi_get_value_int32(env, argv[0], &fd) != napi_ok)
    wrong = "readPacked: fd must be a number";
  else if (!bytes_of(env, argv[1], &buf, &len) || len < (size_t)MAX_RECORDS * REC + DENTS || ((uintptr_t)buf & 7) != 0)
    wrong = "readPacked: buf must be an 8-byte aligned Buffer of at least 131,120 bytes";
  else if (napi_get_value_uint32(env, argv[2], &mask) != napi_ok)
    wrong = "readPacked: statMask must be a number";
  else if (napi_typeof(env, argv[3], &probe_type) != napi_ok ||
           (probe_type != napi_null && (!bytes_of(env, argv[3], &probe, &probe_len) ||
                                        probe_len < PROBE_PATH + PROBE_PATH_MAX || ((uintptr_t)probe & 3) != 0)))
    wrong = "readPacked: probe must be null or the probe's Uint8Array of 4,128 bytes";
  else if (napi_get_value_int32(env, argv[4], &dir_len) != napi_ok || dir_len < 0 || dir_len > PROBE_PATH_MAX)
    wrong = "readPacked: dirLen must be a number from 0 to 4096";
  if (wrong != NULL) return type_error(env, wrong);

  uint8_t* dents = buf + len - DENTS;
  for (;;) {
    long n = syscall(SYS_getdents64, fd, dents, (unsigned int)DENTS);
    if (n < 0) return number(env, -errno);
    if (n == 0) return number(env, 0);
    int32_t count = 0;
    for (long at = 0; at < n;) {
      struct dirent64* d = (struct dirent64*)(dents + at);
      // A record the kernel would not write: the read's error (dirent64.ts says the same).
      if (d->d_reclen < 20 || at + d->d_reclen > n) return number(env, -EIO);
      at += d->d_reclen;
      const char* name = d->d_name;
      size_t name_len = strnlen(name, d->d_reclen - 19);
      if (name_len == 0 || name_len == (size_t)(d->d_reclen - 19)) return number(env, -EIO);
      if (name[0] == '.' && (name_len == 1 || (name_len == 2 && name[1] == '.'))) continue;
      uint8_t* r = buf + (size_t)count * REC;
      count++;
      *(uint32_t*)(r + R_NAME_OFF) = (uint32_t)((const uint8_t*)name - buf);
      const uint32_t named = (uint32_t)name_len | (uint32_t)d->d_type << 16;
      if ((mask & (1u << (d->d_type & 31))) == 0) {
        *(uint32_t*)(r + R_NAME) = named | (uint32_t)S_NAME_ONLY << 24;
        continue;
      }
      if (probe != NULL) probe_entry(probe, dir_len, name, name_len);
      struct statx st;
      if (statx(fd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &st) != 0) {
        *(uint32_t*)(r + R_NAME) = named | (uint32_t)S_FAILED << 24;
        *(int32_t*)(r + R_ERRNO) = errno;
        continue;
      }
      *(uint32_t*)(r + R_NAME) = named | (uint32_t)S_STATED << 24;
      *(double*)(r + R_SIZE) = (double)st.stx_size;
      *(double*)(r + R_BLOCKS) = (double)st.stx_blocks;
      *(double*)(r + R_MTIME_SEC) = (double)st.stx_mtime.tv_sec;
      *(double*)(r + R_INO) = (double)st.stx_ino;
      *(double*)(r + R_DEV) = (double)makedev(st.stx_dev_major, st.stx_dev_minor);
      *(int32_t*)(r + R_MTIME_NSEC) = (int32_t)st.stx_mtime.tv_nsec;
      *(uint32_t*)(r + R_MODE) = st.stx_mode;
      *(uint32_t*)(r + R_UID) = st.stx_uid;
      *(uint32_t*)(r + R_GID) = st.stx_gid;
      *(uint32_t*)(r + R_NLINK) = st.stx_nlink;
    }
    if (probe != NULL) __atomic_store_n(&((int32_t*)probe)[PROBE_LEN], dir_len, __ATOMIC_SEQ_CST);
    // A chunk of "." and ".." only: the next one (the end is said by getdents64's 0).
    if (count > 0) return number(env, count);
  }
}

// mountsChanged(fd: number) -> 1 when the mount table changed since this descriptor's last
// poll (or its open), 0 when not, or -errno. Never waits.
static napi_value mounts_changed(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok)
    return type_error(env, "mountsChanged: fd must be a number");
  struct pollfd p = {.fd = fd, .events = POLLPRI};
  int n = poll(&p, 1, 0);
  if (n < 0) return number(env, -errno);
  if (p.revents & POLLNVAL) return number(env, -EBADF);
  return number(env, (p.revents & (POLLPRI | POLLERR)) != 0 ? 1 : 0);
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "lstatAt", NAPI_AUTO_LENGTH, lstat_at, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "lstatAt", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "openAt", NAPI_AUTO_LENGTH, open_at, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "openAt", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "openDirRead", NAPI_AUTO_LENGTH, open_dir_read, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "openDirRead", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "readPacked", NAPI_AUTO_LENGTH, read_packed, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "readPacked", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "mountsChanged", NAPI_AUTO_LENGTH, mounts_changed, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "mountsChanged", fn) != napi_ok) return NULL;
  return exports;
}
