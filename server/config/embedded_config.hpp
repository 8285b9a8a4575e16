// The default configuration compiled into gridftpd (conf/gridftpd.toml at build time).
#pragma once

#include <string_view>

namespace gridftp::server {
std::string_view embedded_default_config();
}  // namespace gridftp::server
