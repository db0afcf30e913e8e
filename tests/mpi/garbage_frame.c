/* Not an MPI program: connects to the gateway socket the way the shim
 * would and sends bytes that are not a frame. The gateway must end the job
 * with a clear error, not crash. Built with plain cc. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
int main(void) {
    const char *path = getenv("MPINETSIM_SOCKET");
    if (!path) return 2;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) return 3;
    const unsigned char junk[] = {5, 0, 0, 0, 0x7f, 'j', 'u', 'n', 'k'};
    write(fd, junk, sizeof junk);
    sleep(30);
    return 0;
}
