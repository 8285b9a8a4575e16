// Replaced by the client library.
namespace gridftp::client {}
