// The one include of Boost.Asio in the project. GCC 12 with Boost 1.74's awaitable.hpp needs
// <utility> first, and keeping every Asio include here makes that trap impossible to hit twice.
#pragma once

#include <utility>

#include <boost/asio.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace gridftp::transport {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
template <typename T>
using awaitable = asio::awaitable<T>;
using asio::use_awaitable;
}  // namespace gridftp::transport
