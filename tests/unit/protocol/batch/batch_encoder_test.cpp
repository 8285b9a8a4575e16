#include "protocol/batch/batch_encoder.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/batch/batch_decoder.hpp"
#include "protocol/core/crc32c.hpp"

namespace batch = gridftp::protocol::batch;
using Kind = batch::BatchEvent::Kind;

namespace {

// A tree in memory: paths to contents, directories, and entries of other kinds.
class FakeTree final : public batch::TreeReader {
 public:
  std::map<std::string, std::string> files;
  std::vector<std::string> directories;
  std::map<std::string, batch::TreeEntry::Kind> others;
  std::string unreadable;  // open() fails for this file
  std::string shrinks;     // this file reads short of its size
  std::size_t read_calls = 0;

  gridftp::Result<std::vector<batch::TreeEntry>> list(const std::string& relative) override {
    std::vector<batch::TreeEntry> entries;
    const auto prefix = relative.empty() ? std::string() : relative + "/";
    const auto add = [&](const std::string& path, batch::TreeEntry::Kind kind) {
      if (path.rfind(prefix, 0) == 0 && path.find('/', prefix.size()) == std::string::npos) {
        entries.push_back(batch::TreeEntry{path.substr(prefix.size()), kind});
      }
    };
    for (const auto& [path, data] : files) add(path, batch::TreeEntry::Kind::File);
    for (const auto& path : directories) add(path, batch::TreeEntry::Kind::Directory);
    for (const auto& [path, kind] : others) add(path, kind);
    return entries;
  }

  gridftp::Result<std::unique_ptr<batch::TreeFile>> open(const std::string& relative) override {
    if (relative == unreadable) {
      return gridftp::make_error(std::make_error_code(std::errc::permission_denied));
    }
    return std::unique_ptr<batch::TreeFile>(
        std::make_unique<File>(*this, files.at(relative), relative == shrinks));
  }

 private:
  class File final : public batch::TreeFile {
   public:
    File(FakeTree& tree, std::string data, bool shrinks)
        : tree_(tree), data_(std::move(data)), shrinks_(shrinks) {}
    std::uint64_t size() const override { return data_.size() + (shrinks_ ? 10 : 0); }
    gridftp::Result<std::size_t> read_at(std::uint64_t offset, std::span<char> into) override {
      ++tree_.read_calls;
      if (offset >= data_.size()) return std::size_t{0};
      const auto n = std::min<std::size_t>(into.size(), data_.size() - offset);
      std::copy_n(data_.data() + offset, n, into.data());
      return n;
    }

   private:
    FakeTree& tree_;
    std::string data_;
    bool shrinks_;
  };
};

std::uint32_t crc_of(const std::string& bytes) {
  gridftp::protocol::Crc32c crc;
  crc.update(std::span<const char>(bytes.data(), bytes.size()));
  return crc.value();
}

// Encodes the whole tree in fills of `want` bytes and decodes it back into one line per event.
std::vector<std::string> round_trip(batch::BatchEncoder& encoder, std::size_t want) {
  std::string stream;
  for (bool ended = false; !ended;) {
    std::string out;
    auto filled = encoder.fill(out, want);
    REQUIRE(filled);
    ended = *filled;
    stream += out;
  }
  batch::BatchDecoder decoder;
  std::vector<std::string> lines;
  std::span<const char> input(stream.data(), stream.size());
  batch::BatchEvent event;
  std::string data;
  do {
    auto used = decoder.next(input, event);
    REQUIRE(used);
    input = input.subspan(*used);
    switch (event.kind) {
      case Kind::Directory:
        lines.push_back("D " + event.path);
        break;
      case Kind::FileBegin:
        lines.push_back("F " + event.path + " @" + std::to_string(event.offset));
        data.clear();
        break;
      case Kind::Data:
        data.append(event.payload.data(), event.payload.size());
        break;
      case Kind::FileEnd:
        lines.back() += " " + data + " crc " + std::to_string(event.crc);
        break;
      case Kind::Refer:
        lines.push_back("R " + event.path + " " + std::to_string(event.length));
        break;
      case Kind::FileError:
        lines.push_back("X " + event.path + ": " + event.message);
        break;
      case Kind::End:
        lines.push_back("E " + std::to_string(event.files));
        break;
      case Kind::NeedMore:
        break;
    }
  } while (event.kind != Kind::NeedMore);
  CHECK(decoder.finish());
  return lines;
}

FakeTree sample_tree() {
  FakeTree tree;
  tree.files = {{"a.txt", "alpha"},
                {"a/x", "in a"},
                {"b", ""},
                {"a/sub/deep", "deep!"},
                {"big", std::string(100, 'B')}};
  tree.directories = {"a", "a/sub", "empty"};
  tree.others = {{"fifo", batch::TreeEntry::Kind::Other},
                 {"loop", batch::TreeEntry::Kind::LinkToDirectory}};
  return tree;
}

}  // namespace

TEST_CASE("a batch walks the tree depth-first in byte order, whatever the fill size", "[batch]") {
  for (std::size_t want : {std::size_t{1}, std::size_t{7}, std::size_t{4096}}) {
    INFO("fill " << want);
    auto tree = sample_tree();
    batch::BatchEncoder encoder(tree, 50);
    const std::vector<std::string> expected{
        "D a",
        "D a/sub",
        "F a/sub/deep @0 deep! crc " + std::to_string(crc_of("deep!")),
        "F a/x @0 in a crc " + std::to_string(crc_of("in a")),
        "F a.txt @0 alpha crc " + std::to_string(crc_of("alpha")),
        "F b @0  crc " + std::to_string(crc_of("")),
        "R big 100",
        "D empty",
        "X fifo: not a regular file",
        "X loop: a link to a directory; not followed",
        "E 4"};
    CHECK(round_trip(encoder, want) == expected);
    CHECK(encoder.files_sent() == 4);
    CHECK(encoder.unreadable() == 2);
  }
}

TEST_CASE("a restarted batch leaves out what is held and resumes mid-file", "[batch]") {
  auto tree = sample_tree();
  batch::BatchEncoder encoder(tree, 0, batch::RestartPoint{3, "a.txt"});
  const auto lines = round_trip(encoder, 4096);
  // a.txt from byte 3, with the CRC of the whole file; b and big whole; nothing of a/.
  REQUIRE(lines.size() >= 3);
  CHECK(lines[0] == "D a");
  CHECK(lines[1] == "D a/sub");
  CHECK(lines[2] == "F a.txt @3 ha crc " + std::to_string(crc_of("alpha")));
  CHECK(lines[3] == "F b @0  crc " + std::to_string(crc_of("")));
  CHECK(lines[4].rfind("F big @0 ", 0) == 0);
  CHECK(lines.back() == "E 3");
}

TEST_CASE("a batch sender's handlers take referred, refused and sent files", "[batch]") {
  auto tree = sample_tree();
  tree.unreadable = "a/x";
  batch::BatchEncoder encoder(tree, 50);
  std::vector<std::string> referred, refused, sent;
  encoder.refer_to([&](const std::string& path, std::uint64_t size) {
    referred.push_back(path + " " + std::to_string(size));
  });
  encoder.refuse_to([&](const std::string& path, const std::string& why) {
    refused.push_back(path + ": " + why);
  });
  encoder.on_file_sent([&](const std::string& path, std::uint64_t size) {
    sent.push_back(path + " " + std::to_string(size));
  });
  const auto lines = round_trip(encoder, 4096);
  CHECK(referred == std::vector<std::string>{"big 100"});
  CHECK(refused == std::vector<std::string>{"a/x: Permission denied", "fifo: not a regular file",
                                            "loop: a link to a directory; not followed"});
  CHECK(sent == std::vector<std::string>{"a/sub/deep 5", "a.txt 5", "b 0"});
  for (const auto& line : lines) {
    CHECK(line[0] != 'R');
    CHECK(line[0] != 'X');
  }
}

TEST_CASE("a file that shrinks while it is sent fails the batch", "[batch]") {
  auto tree = sample_tree();
  tree.shrinks = "a.txt";
  batch::BatchEncoder encoder(tree, 0);
  std::string out;
  gridftp::Result<bool> filled = false;
  while (filled && !*filled) filled = encoder.fill(out, 1 << 20);
  REQUIRE_FALSE(filled);
  CHECK(filled.error() == std::errc::io_error);
}
