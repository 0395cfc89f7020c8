/*
 * flinklab's loader of Flink's RPC system (flinklab/cluster/local_rpc.py): the RPC system's jar is on the JVM's
 * class path, so its classes come from the class-data archive like the rest of Flink's, instead of being copied out
 * of flink-dist and loaded by a class loader of their own at every start (Flink's PekkoRpcSystemLoader).
 *
 * RpcSystem.load asks its loaders in the order of their priority, lowest first: this one (-1) comes before Flink's
 * (0). Where the RPC system is not on the class path, the exception it throws has RpcSystem.load ask Flink's.
 *
 * Compiled for Java 11 into ClasspathRpcSystemLoader.class next to this file (the test
 * tests/unit/test_local_rpc.py compiles it again with javac and compares):
 *   javac --release 11 -cp flink-dist-*.jar -d /tmp/out ClasspathRpcSystemLoader.java
 */
package org.flinklab.rpc;

import java.util.Iterator;
import java.util.ServiceLoader;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.runtime.rpc.RpcSystemLoader;
import org.apache.flink.runtime.rpc.exceptions.RpcLoaderException;

public class ClasspathRpcSystemLoader implements RpcSystemLoader {
    @Override
    public int getLoadPriority() {
        return -1;
    }

    @Override
    public RpcSystem loadRpcSystem(Configuration config) {
        Iterator<RpcSystem> found =
                ServiceLoader.load(RpcSystem.class, ClasspathRpcSystemLoader.class.getClassLoader()).iterator();
        if (!found.hasNext()) {
            throw new RpcLoaderException("flinklab: no RPC system on the class path");
        }
        return found.next();
    }
}
