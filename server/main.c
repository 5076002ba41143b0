/* main.c -- ircgd entry point; everything else is in libircgserver.a. */
#include "daemon.h"

int main(int argc, char **argv)
{
    return srv_main(argc, argv);
}
