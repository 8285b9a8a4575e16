#include "protocol/listing/file_facts.hpp"

#include <array>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::listing {
namespace {

constexpr std::int64_t kSecondsPerDay = 86'400;
// GNU ls: half of an average Gregorian year.
constexpr std::int64_t kSixMonthsSeconds = 31'556'952 / 2;
constexpr std::array<std::string_view, 12> kMonthNames = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

struct CivilTime {
  std::int64_t year;
  int month;  // 1-12
  int day;    // 1-31
  int hour;
  int minute;
  int second;
};

// Howard Hinnant's days_from_civil: proleptic Gregorian date to days since 1970-01-01.
std::int64_t days_from_civil(std::int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const std::int64_t year_of_era = year - era * 400;
  const std::int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const std::int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146'097 + day_of_era - 719'468;
}

// Inverse of days_from_civil, plus the time of day.
CivilTime civil_from_unix(std::int64_t unix_seconds) {
  std::int64_t days = unix_seconds / kSecondsPerDay;
  std::int64_t seconds_of_day = unix_seconds % kSecondsPerDay;
  if (seconds_of_day < 0) {
    seconds_of_day += kSecondsPerDay;
    --days;
  }
  const std::int64_t shifted = days + 719'468;
  const std::int64_t era = (shifted >= 0 ? shifted : shifted - 146'096) / 146'097;
  const std::int64_t day_of_era = shifted - era * 146'097;
  const std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36'524 - day_of_era / 146'096) / 365;
  const std::int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const std::int64_t month_index = (5 * day_of_year + 2) / 153;  // March = 0
  const auto day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  const auto month = static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  const std::int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
  return {year,
          month,
          day,
          static_cast<int>(seconds_of_day / 3600),
          static_cast<int>(seconds_of_day / 60 % 60),
          static_cast<int>(seconds_of_day % 60)};
}

// Four-digit years keep MDTM at its fixed 14 characters.
std::int64_t clamp_to_four_digit_years(std::int64_t unix_seconds) {
  const std::int64_t earliest = days_from_civil(0, 1, 1) * kSecondsPerDay;
  const std::int64_t latest = days_from_civil(9999, 12, 31) * kSecondsPerDay + kSecondsPerDay - 1;
  return unix_seconds < earliest ? earliest : (unix_seconds > latest ? latest : unix_seconds);
}

void append_number(std::string& out, std::uint64_t value, std::size_t width, char fill,
                   unsigned base = 10) {
  std::array<char, 24> digits{};
  std::size_t count = 0;
  do {
    digits[count++] = "0123456789abcdef"[value % base];
    value /= base;
  } while (value != 0);
  if (width > count) {
    out.append(width - count, fill);
  }
  while (count > 0) {
    out += digits[--count];
  }
}

void append_fact_value(std::string& out, std::string_view value) {
  for (const char c : value) {
    const bool unsafe = c == ';' || c == '=' || c == ' ' || static_cast<unsigned char>(c) < 0x20;
    out += unsafe ? '_' : c;
  }
}

std::string_view type_fact(FileType type) {
  switch (type) {
    case FileType::File:
      return "file";
    case FileType::Dir:
      return "dir";
    case FileType::Cdir:
      return "cdir";
    case FileType::Pdir:
      return "pdir";
    case FileType::Symlink:
      return "OS.unix=slink";
    case FileType::Other:
      return "OS.unix=special";
  }
  return "OS.unix=special";
}

bool is_directory(FileType type) {
  return type == FileType::Dir || type == FileType::Cdir || type == FileType::Pdir;
}

char type_letter(FileType type) {
  if (is_directory(type)) {
    return 'd';
  }
  if (type == FileType::Symlink) {
    return 'l';
  }
  return type == FileType::File ? '-' : '?';
}

// "rwxr-xr-x" with the set-id and sticky bits folded into the execute columns, as ls does.
std::string mode_letters(std::uint32_t mode) {
  std::string letters = "---------";
  constexpr std::string_view kRwx = "rwx";
  for (std::size_t bit = 0; bit < 9; ++bit) {
    if ((mode & (0400U >> bit)) != 0) {
      letters[bit] = kRwx[bit % 3];
    }
  }
  const auto fold = [&letters](std::size_t column, bool special, char with_exec, char without) {
    if (special) {
      letters[column] = letters[column] == 'x' ? with_exec : without;
    }
  };
  fold(2, (mode & 04000U) != 0, 's', 'S');
  fold(5, (mode & 02000U) != 0, 's', 'S');
  fold(8, (mode & 01000U) != 0, 't', 'T');
  return letters;
}

bool all_digits(std::string_view text) {
  for (const char c : text) {
    if (c < '0' || c > '9') {
      return false;
    }
  }
  return !text.empty();
}

int parse_digits(std::string_view text) {
  int value = 0;
  for (const char c : text) {
    value = value * 10 + (c - '0');
  }
  return value;
}

bool is_leap_year(std::int64_t year) {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

int days_in_month(std::int64_t year, int month) {
  constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29 : kDays[static_cast<std::size_t>(month - 1)];
}

}  // namespace

std::string format_mdtm(std::int64_t unix_seconds) {
  const CivilTime time = civil_from_unix(clamp_to_four_digit_years(unix_seconds));
  std::string out;
  append_number(out, static_cast<std::uint64_t>(time.year), 4, '0');
  append_number(out, static_cast<std::uint64_t>(time.month), 2, '0');
  append_number(out, static_cast<std::uint64_t>(time.day), 2, '0');
  append_number(out, static_cast<std::uint64_t>(time.hour), 2, '0');
  append_number(out, static_cast<std::uint64_t>(time.minute), 2, '0');
  append_number(out, static_cast<std::uint64_t>(time.second), 2, '0');
  return out;
}

Result<std::int64_t> parse_mdtm(std::string_view text) {
  const auto bad = make_error(Errc::BadArgument);
  if (text.size() > 14) {
    // RFC 3659 §2.3: time-val = 14DIGIT [ "." 1*DIGIT ]
    if (text[14] != '.' || !all_digits(text.substr(15))) {
      return bad;
    }
    text = text.substr(0, 14);
  }
  if (text.size() != 14 || !all_digits(text)) {
    return bad;
  }
  const std::int64_t year = parse_digits(text.substr(0, 4));
  const int month = parse_digits(text.substr(4, 2));
  const int day = parse_digits(text.substr(6, 2));
  const int hour = parse_digits(text.substr(8, 2));
  const int minute = parse_digits(text.substr(10, 2));
  const int second = parse_digits(text.substr(12, 2));
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return bad;
  }
  return days_from_civil(year, month, day) * kSecondsPerDay + std::int64_t{hour} * 3600 +
         std::int64_t{minute} * 60 + second;
}

std::string perm_fact(const FileFacts& facts) {
  std::string perm;
  if (is_directory(facts.type)) {
    perm += facts.writable ? "cdfmp" : "";
    perm += facts.readable ? "el" : "";
    return perm;
  }
  perm += facts.writable ? "adfw" : "";
  perm += facts.readable ? "r" : "";
  return perm;
}

std::string format_mlsx_line(const FileFacts& facts) {
  std::string line = "Type=";
  line += type_fact(facts.type);
  line += ";Modify=" + format_mdtm(facts.modify_unix_seconds);
  line += ";Size=" + std::to_string(facts.size_bytes);
  line += ";Perm=" + perm_fact(facts);
  line += ";UNIX.mode=0";
  append_number(line, facts.mode & 07777U, 3, '0', 8);
  line += ";UNIX.owner=";
  append_fact_value(line, facts.owner);
  line += ";UNIX.uid=" + std::to_string(facts.uid);
  line += ";UNIX.group=";
  append_fact_value(line, facts.group);
  line += ";UNIX.gid=" + std::to_string(facts.gid);
  line += ";Unique=";
  append_number(line, facts.device, 1, '0', 16);
  line += '-';
  append_number(line, facts.inode, 1, '0', 16);
  line += "; ";
  line += facts.name;
  return line;
}

std::string format_list_line(const FileFacts& facts, std::int64_t now_unix_seconds) {
  const std::int64_t modified = clamp_to_four_digit_years(facts.modify_unix_seconds);
  const std::int64_t age = clamp_to_four_digit_years(now_unix_seconds) - modified;
  const bool recent = age > -kSixMonthsSeconds && age < kSixMonthsSeconds;
  const CivilTime time = civil_from_unix(modified);

  std::string line(1, type_letter(facts.type));
  line += mode_letters(facts.mode);
  line += ' ';
  append_number(line, facts.link_count, 3, ' ');
  line += ' ' + facts.owner + "  " + facts.group + "  " + std::to_string(facts.size_bytes) + ' ';
  line += kMonthNames[static_cast<std::size_t>(time.month - 1)];
  line += ' ';
  append_number(line, static_cast<std::uint64_t>(time.day), 2, ' ');
  line += ' ';
  if (recent) {
    append_number(line, static_cast<std::uint64_t>(time.hour), 2, '0');
    line += ':';
    append_number(line, static_cast<std::uint64_t>(time.minute), 2, '0');
  } else {
    line += ' ';
    append_number(line, static_cast<std::uint64_t>(time.year), 4, ' ');
  }
  line += ' ' + facts.name;
  return line;
}

}  // namespace gridftp::protocol::listing
