// The floor of any exact pi-grep: every line of every session file under
// DIR checked as JSON by simdjson (Debian's libsimdjson-dev), the fastest
// JSON parser there is, with no search at all. pi skips a line JSON.parse
// rejects, so an exact search must check each line that holds the pattern
// in full; for a pattern on nearly every line that is every line.
//
//   jsonfloor dom DIR       full validation (simdjson's DOM parser)
//   jsonfloor stage1 DIR   its first stage only: the structural index and
//                          UTF-8 check, not the grammar (a lower bound of
//                          the full check, not a check)
//
// One thread per core, files handed out in turn; each file read whole
// with read(2), lines found with memchr, each line parsed in place.
#include <simdjson.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

static std::vector<std::string> files;
static std::atomic<size_t> next_file{0};
static std::atomic<long> valid{0}, invalid{0}, total{0};
static bool dom = true;

static void work() {
  simdjson::dom::parser parser;
  simdjson::ondemand::parser ondemand;
  std::vector<char> buf;
  long v = 0, iv = 0, b = 0;
  for (;;) {
    size_t i = next_file++;
    if (i >= files.size()) break;
    int fd = open(files[i].c_str(), O_RDONLY);
    if (fd < 0) continue;
    struct stat st;
    if (fstat(fd, &st) != 0) { close(fd); continue; }
    buf.resize(st.st_size + simdjson::SIMDJSON_PADDING);
    size_t n = 0;
    ssize_t r;
    while (n < (size_t)st.st_size && (r = read(fd, buf.data() + n, st.st_size - n)) > 0) n += r;
    close(fd);
    b += n;
    // simdjson reads up to SIMDJSON_PADDING bytes past a line: the next
    // lines, or the padding after the file
    const char *p = buf.data(), *end = p + n;
    while (p < end) {
      const char *nl = (const char *)memchr(p, '\n', end - p);
      const char *le = nl ? nl : end;
      if (le > p) {
        bool ok;
        if (dom) {
          ok = !parser.parse((const uint8_t *)p, le - p, false).error();
        } else {
          ok = !ondemand.iterate(p, le - p, le - p + simdjson::SIMDJSON_PADDING).error();
        }
        ok ? v++ : iv++;
      }
      p = le + 1;
    }
  }
  valid += v;
  invalid += iv;
  total += b;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "dom") != 0 && strcmp(argv[1], "stage1") != 0)) {
    fprintf(stderr, "usage: jsonfloor dom|stage1 DIR\n");
    return 2;
  }
  dom = strcmp(argv[1], "dom") == 0;
  for (auto &e : std::filesystem::recursive_directory_iterator(argv[2]))
    if (e.is_regular_file() && e.path().extension() == ".jsonl") files.push_back(e.path());
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> ts;
  for (unsigned t = 0; t < threads; t++) ts.emplace_back(work);
  for (auto &t : ts) t.join();
  fprintf(stderr, "jsonfloor %s (simdjson %s kernel, %u threads): %zu files, %ld bytes, %ld valid lines, %ld not\n",
          argv[1], simdjson::get_active_implementation()->name().c_str(), threads, files.size(),
          total.load(), valid.load(), invalid.load());
}
