// The agent's two *at() calls on a directory descriptor, for the walk. Node has none, so
// without this the walk reaches a name through the descriptor's magic link,
// "/proc/self/fd/N/name": confined the same way, but the kernel cannot resolve a magic link
// in its fast (RCU) path walk, so every such lookup is done twice, the second time through
// procfs's checks. Here a name is looked up in that directory and nothing else:
// - lstatAt: statx(N, name, AT_SYMLINK_NOFOLLOW) (fstatat's lookup; statx because glibc has
//   had it since 2.28, the packages' floor, where fstatat's own symbol is 2.33's);
// - openAt: openat(N, name, O_PATH|O_NOFOLLOW|O_CLOEXEC[|O_DIRECTORY]): a handle for
//   lookups only, never for reading, so a FIFO or a device is never opened for I/O.
// A name must be one component: no "/", no NUL, not "." or "..". Read-only: nothing here
// reads a file or changes anything. Node-API, so one build serves Node 20, 22 and 24 and
// the packaged runtime.
#define NAPI_VERSION 8
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <node_api.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

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

/* The descriptor and the name of a call `fn(dirFd, name, ...)`, or a thrown TypeError (false). */
static bool fd_and_name(napi_env env, napi_value* argv, const char* fn, int32_t* fd, napi_value* name) {
  if (napi_get_value_int32(env, argv[0], fd) != napi_ok) {
    char msg[64];
    snprintf(msg, sizeof msg, "%s: dirFd must be a number", fn);
    napi_throw_type_error(env, NULL, msg);
    return false;
  }
  bool is_buffer = false;
  napi_is_buffer(env, argv[1], &is_buffer);
  if (!is_buffer) {
    char msg[64];
    snprintf(msg, sizeof msg, "%s: name must be a Buffer", fn);
    napi_throw_type_error(env, NULL, msg);
    return false;
  }
  *name = argv[1];
  return true;
}

// lstatAt(dirFd: number, name: Buffer, out: Float64Array) -> 0, or the errno. Not followed
// if it is a symlink.
static napi_value lstat_at(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3)
    return type_error(env, "lstatAt(dirFd, name, out): three arguments");
  int32_t fd;
  napi_value name_value;
  if (!fd_and_name(env, argv, "lstatAt", &fd, &name_value)) return NULL;
  bool is_typed = false;
  napi_is_typedarray(env, argv[2], &is_typed);
  if (!is_typed) return type_error(env, "lstatAt: out must be a Float64Array");
  napi_typedarray_type type;
  size_t count;
  void* out_data;
  napi_get_typedarray_info(env, argv[2], &type, &count, &out_data, NULL, NULL);
  if (type != napi_float64_array || count < F_COUNT) return type_error(env, "lstatAt: out must be a Float64Array of 10");
  char name[NAME_MAX + 1];
  int bad = one_component(env, name_value, name);
  if (bad != 0) return number(env, bad);

  struct statx st;
  if (statx(fd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &st) != 0) return number(env, errno);
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
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3)
    return type_error(env, "openAt(dirFd, name, dir): three arguments");
  int32_t fd;
  napi_value name_value;
  if (!fd_and_name(env, argv, "openAt", &fd, &name_value)) return NULL;
  bool dir;
  if (napi_get_value_bool(env, argv[2], &dir) != napi_ok) return type_error(env, "openAt: dir must be a boolean");
  char name[NAME_MAX + 1];
  int bad = one_component(env, name_value, name);
  if (bad != 0) return number(env, -bad);
  int opened = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
  return number(env, opened >= 0 ? opened : -errno);
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "lstatAt", NAPI_AUTO_LENGTH, lstat_at, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "lstatAt", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "openAt", NAPI_AUTO_LENGTH, open_at, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "openAt", fn) != napi_ok) return NULL;
  return exports;
}
